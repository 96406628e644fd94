import { data } from "react-router";
import type { Route } from "./+types/book.calendar";
import { bookableBusiness } from "~/features/booking/booking.server";
import { placedBooking, placedBookingIcs } from "~/features/booking/booking-cookie.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";

/** "Add to calendar" on the done page: the booking this browser just made, as an .ics file. */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const business = await bookableBusiness(services, params.bookingLink);
  const placed = business ? await placedBooking(services, request, business) : null;
  if (!business || !placed) throw data(null, { status: 404 });
  const ics = placedBookingIcs(business, placed, services.publicOrigin(), t("flows.calendarDescription", { business: business.name }));
  return new Response(ics, {
    headers: {
      "Content-Type": "text/calendar; charset=utf-8",
      "Content-Disposition": 'attachment; filename="booking.ics"',
    },
  });
}
