import type { Route } from "./+types/business";
import { apiError } from "~/platform/http/api.server";
import { bookableBusiness } from "~/features/booking/booking.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";

/** GET /api/booking/business/{bookingLink} → { name, phone, address, description } */
export async function loader({ params, context }: Route.LoaderArgs) {
  const t = getT(context);
  const business = await bookableBusiness(context.get(servicesContext), params.bookingLink);
  if (!business) return apiError(404, t("book.invalidBody"));
  return Response.json({
    name: business.name,
    phone: business.phone,
    address: business.address,
    description: business.description,
    timeZone: business.timeZone,
  });
}
