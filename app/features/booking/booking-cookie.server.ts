import { findBooking } from "#models/bookings";
import { findService } from "#models/business-services";
import type { Business } from "#models/businesses";
import { bookingEventUid, bookingIcs } from "~/lib/calendar/ics";
import type { AppServices } from "~/platform/services.server";

/** The customer's details while a booking is in progress. */
export interface BookingDraft {
  link: string;
  name: string;
  phone: string;
  email: string;
  notes: string;
}

/** Which booking this browser has just made: only this browser sees it on the done page. */
interface PlacedBooking {
  link: string;
  placed: { id: number; manageToken: string | null };
}

/**
 * The booking page's signed, HttpOnly cookie (an hour): first the customer's details (kept out
 * of URLs and logs), then, once the booking is placed, its id and the secret of its manage page.
 * The done page's address carries nothing private, so a hand-made or shared one shows nothing.
 */
async function read(services: AppServices, request: Request): Promise<Partial<BookingDraft & PlacedBooking> | null> {
  const value: unknown = await services.cookies.bookingDraft.parse(request.headers.get("Cookie"));
  return value && typeof value === "object" ? (value as Partial<BookingDraft & PlacedBooking>) : null;
}

export async function readDraft(services: AppServices, request: Request, link: string): Promise<BookingDraft | null> {
  const value = await read(services, request);
  return value?.link === link && typeof value.name === "string" && typeof value.phone === "string" ? (value as BookingDraft) : null;
}

export function draftCookie(services: AppServices, draft: BookingDraft) {
  return services.cookies.bookingDraft.serialize(draft);
}

export function placedCookie(services: AppServices, link: string, id: number, manageToken: string | null) {
  return services.cookies.bookingDraft.serialize({ link, placed: { id, manageToken } } satisfies PlacedBooking);
}

/** The booking this browser placed on this business's page a moment ago, or null. */
export async function placedBooking(services: AppServices, request: Request, business: Business) {
  const value = await read(services, request);
  const placed = value?.link === business.bookingLink ? value.placed : undefined;
  if (!placed || !Number.isSafeInteger(placed.id)) return null;
  const booking = await findBooking(services.db, placed.id);
  if (!booking || booking.businessId !== business.id) return null;
  const service = await findService(services.db, business.id, booking.serviceId);
  if (!service) return null;
  return { booking, service, manageToken: typeof placed.manageToken === "string" ? placed.manageToken : null };
}

/** The booking as an iCalendar file, for "Add to calendar". */
export function placedBookingIcs(
  business: Business,
  found: NonNullable<Awaited<ReturnType<typeof placedBooking>>>,
  origin: string,
  describe: string,
) {
  const { booking, service, manageToken } = found;
  return bookingIcs({
    uid: bookingEventUid(booking.id),
    start: booking.startsAt,
    end: booking.endsAt,
    summary: `${service.name} · ${business.name}`,
    description: describe,
    location: business.address,
    ...(manageToken ? { url: `${origin}/booking/${manageToken}` } : {}),
  });
}
