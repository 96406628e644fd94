import type { Route } from "./+types/services";
import { apiError } from "~/platform/http/api.server";
import { bookingPageReads } from "~/features/booking/booking.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";

/** GET /api/booking/services/{bookingLink} → [{ id, name, description, price, currency, duration }] */
export async function loader({ params, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  // The booking page's own reads, cached: a client asking again reads nothing from the database.
  const { business, services: offered } = await bookingPageReads(services, params.bookingLink);
  if (business?.status !== "active") return apiError(404, t("book.invalidBody"));
  return Response.json(
    offered.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      price: s.priceCents / 100,
      priceCents: s.priceCents,
      currency: s.currency,
      duration: s.durationMinutes,
    })),
  );
}
