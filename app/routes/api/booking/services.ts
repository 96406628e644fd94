import type { Route } from "./+types/services";
import { apiError } from "~/server/api.server";
import { bookableBusiness, bookableServices } from "~/server/booking.server";
import { servicesContext } from "~/server/context";
import { getI18n } from "~/server/i18n.server";

/** GET /api/booking/services/{bookingLink} → [{ id, name, description, price, currency, duration }] */
export async function loader({ params, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const { t } = getI18n(context);
  const business = await bookableBusiness(services, params.bookingLink);
  if (!business) return apiError(404, t("book.invalidBody"));
  const list = await bookableServices(services, business);
  return Response.json(
    list.map((s) => ({
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
