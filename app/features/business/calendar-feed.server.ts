import { createHash, randomBytes } from "node:crypto";
import type { TFunction } from "i18next";
import { findBusinessById } from "#models/businesses";
import {
  createCalendarFeedOnce,
  findBusinessIdByFeedTokenHash,
  findCalendarFeed,
  replaceCalendarFeed,
  listFeedBookings,
  type FeedBooking,
} from "#models/calendar-feeds";
import { bookingEventUid } from "~/lib/calendar/ics";
import { calendarFeedIcs, type FeedEvent } from "~/lib/calendar/ics-feed";
import { translatorFor } from "~/platform/i18n.server";
import { seal, unseal } from "~/platform/security/secret.server";
import type { AppServices } from "~/platform/services.server";
import { formatBookingReference } from "#models/booking-reference";

/**
 * The owner's private calendar subscription (issue 27.3). The token is 32 random bytes: looked up
 * by its SHA-256 (as every token, decision 0021) and kept sealed under the signing secret only so
 * the settings page can show the link again. The feed is read from the database on every request,
 * so a rotated link answers 404 in every process at once.
 */
const SEAL_PURPOSE = "calendar-feed";
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** How far back the feed reaches: recent appointments stay in the owner's calendar, recent cancellations show as cancelled. */
const RECENT_MS = 30 * 86_400_000;

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

function newFeed(services: AppServices, businessId: number) {
  const token = randomBytes(32).toString("base64url");
  return { token, feed: { businessId, tokenHash: hashToken(token), tokenSealed: seal(services.signingSecret, SEAL_PURPOSE, token) } };
}

/** The feed's addresses, built from the configured public origin (never a request's Host). */
function feedLinks(services: AppServices, token: string) {
  const https = `${services.publicOrigin()}/calendar/${token}.ics`;
  return { https, webcal: https.replace(/^https?:/, "webcal:") };
}

/**
 * The business's feed links; the first visit makes the feed. A token sealed under another signing
 * secret (SESSION_SECRET was changed) cannot be shown again, so a new one replaces it.
 */
export async function calendarFeedLinks(services: AppServices, businessId: number) {
  const stored =
    (await findCalendarFeed(services.db, businessId)) ?? (await createCalendarFeedOnce(services.db, newFeed(services, businessId).feed));
  const token = unseal(services.signingSecret, SEAL_PURPOSE, stored.tokenSealed);
  if (token) return feedLinks(services, token);
  const fresh = newFeed(services, businessId);
  await replaceCalendarFeed(services.db, fresh.feed);
  return feedLinks(services, fresh.token);
}

/** A new link; the old one stops working at once. */
export async function rotateCalendarFeed(services: AppServices, businessId: number) {
  const fresh = newFeed(services, businessId);
  await replaceCalendarFeed(services.db, fresh.feed);
  return feedLinks(services, fresh.token);
}

const eventStatus: Record<FeedBooking["status"], FeedEvent["status"]> = {
  pending: "TENTATIVE",
  reschedule_requested: "TENTATIVE",
  unreachable: "TENTATIVE",
  confirmed: "CONFIRMED",
  no_show: "CONFIRMED",
  cancelled: "CANCELLED",
};

/**
 * What the owner's calendar shows of one booking: the customer's first name and the service, its
 * state, and the way to the booking in the dashboard. Never a phone number or an e-mail address.
 * The description carries the booking's reference (issue 27.2), which the customer quotes on the phone.
 */
function feedEventText(t: TFunction, booking: FeedBooking, dashboardUrl: string) {
  const firstName = booking.customerName.trim().split(/\s+/)[0] ?? "";
  return {
    summary: t("calendarFeed.eventSummary", { name: firstName, service: booking.serviceName }),
    description: [
      t(`bookingStatus.${booking.status}`),
      `${t("bookingEmail.reference")}: ${formatBookingReference(booking.reference)}`,
      t("calendarFeed.eventDetails", { url: dashboardUrl }),
    ].join("\n"),
  };
}

/**
 * One booking as an event of the owner's calendar: the feed's, and the one written to the owner's
 * CalDAV calendar (booking/calendar-sync.server.ts), the same event under the same UID.
 */
export function ownerCalendarEvent(t: TFunction, booking: FeedBooking, origin: string): FeedEvent {
  const url = `${origin}/dashboard/bookings/${booking.id}`;
  return {
    uid: bookingEventUid(booking.id),
    sequence: booking.sequence,
    status: eventStatus[booking.status],
    start: booking.startsAt,
    end: booking.endsAt,
    created: booking.createdAt,
    lastModified: booking.updatedAt,
    url,
    ...feedEventText(t, booking, url),
  };
}

/** The body of /calendar/<token>.ics, or null when the token is wrong or was rotated. */
export async function calendarFeedBody(services: AppServices, file: string) {
  const token = file.endsWith(".ics") ? file.slice(0, -".ics".length) : "";
  if (!TOKEN.test(token)) return null;
  const businessId = await findBusinessIdByFeedTokenHash(services.db, hashToken(token));
  const business = businessId ? await findBusinessById(services.db, businessId) : null;
  if (!business) return null;
  const t = await translatorFor(business.defaultLanguage);
  const origin = services.publicOrigin();
  const rows = await listFeedBookings(services.db, business.id, new Date(Date.now() - RECENT_MS));
  const events = rows.map((booking) => ownerCalendarEvent(t, booking, origin));
  return calendarFeedIcs({
    name: t("calendarFeed.calendarName", { business: business.name }),
    description: t("calendarFeed.calendarDescription", { business: business.name }),
    events,
  });
}
