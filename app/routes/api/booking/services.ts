import type { Route } from "./+types/services";
import { apiError } from "~/platform/http/api.server";
import { bookableBusiness, bookableServices } from "~/features/booking/booking.server";
import { servicesContext } from "~/platform/context";
import { getI18n } from "~/platform/i18n.server";

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
