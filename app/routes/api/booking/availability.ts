import type { Route } from "./+types/availability";
import { apiError } from "~/platform/api.server";
import { bookableBusiness, slotsForDay } from "~/features/booking/booking.server";
import { servicesContext } from "~/platform/context";
import { getI18n } from "~/platform/i18n.server";
import { parseDbId } from "~/lib/validation";

/** GET /api/booking/availability/{bookingLink}/{YYYY-MM-DD}/{serviceId} → [{ time, available }] */
export async function loader({ params, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const { t } = getI18n(context);
  const business = await bookableBusiness(services, params.bookingLink);
  if (!business) return apiError(404, t("book.invalidBody"));
  const result = await slotsForDay(services, business, parseDbId(params.serviceId) ?? Number.NaN, params.date);
  if ("error" in result) {
    const message = {
      bad_date: t("book.apiBadDate"),
      outside_window: t("book.apiOutsideWindow"),
      unknown_service: t("book.apiUnknownService"),
    }[result.error!];
    return apiError(400, message, { code: result.error });
  }
  return Response.json(
    result.slots.map(({ time, available }) => ({ time, available })),
    {
      headers: { "Cache-Control": "no-store" },
    },
  );
}
