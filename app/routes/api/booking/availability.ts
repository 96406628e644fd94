import type { Route } from "./+types/availability";
import { apiError } from "~/platform/http/api.server";
import { dayAvailability } from "~/features/booking/booking.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";
import { parseDbId } from "~/lib/ids";

/** GET /api/booking/availability/{bookingLink}/{YYYY-MM-DD}/{serviceId} → [{ time, available }] */
export async function loader({ params, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const result = await dayAvailability(services, params.bookingLink, parseDbId(params.serviceId) ?? Number.NaN, params.date);
  if ("error" in result) {
    if (result.error === "not_found") return apiError(404, t("book.invalidBody"));
    const message = {
      bad_date: t("book.apiBadDate"),
      outside_window: t("book.apiOutsideWindow", { days: result.windowDays }),
      unknown_service: t("book.apiUnknownService"),
    }[result.error];
    return apiError(400, message, { code: result.error });
  }
  return Response.json(result.slots, { headers: { "Cache-Control": "no-store" } });
}
