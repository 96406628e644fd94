import { redirect } from "react-router";
import type { Route } from "./+types/booking.calendar";
import { findBookingByManageToken } from "#models/bookings";
import { findService } from "#models/business-services";
import { findBusinessById } from "#models/businesses";
import { bookingCalendar } from "~/features/booking/manage-link.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";

/** "Add to calendar" from the manage link (not the booking session): the booking as it stands, as an .ics file. */
export async function loader({ params, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const booking = await findBookingByManageToken(services.db, params.token);
  const business = booking ? await findBusinessById(services.db, booking.businessId) : null;
  const service = booking && business ? await findService(services.db, business.id, booking.serviceId) : null;
  // An unknown or replaced link: its page says so, in the business's frame when it can.
  if (!booking || !business || !service) throw redirect(`/booking/${encodeURIComponent(params.token)}`);
  const calendar = bookingCalendar(
    services,
    booking,
    business,
    service.name,
    params.token,
    t("flows.calendarDescription", { business: business.name }),
  );
  return new Response(calendar.ics(), {
    headers: {
      "Content-Type": `text/calendar; charset=utf-8; method=${booking.status === "cancelled" ? "CANCEL" : "PUBLISH"}`,
      "Content-Disposition": 'attachment; filename="booking.ics"',
      "Cache-Control": "no-store",
    },
  });
}
