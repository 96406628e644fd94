import { log } from "~/platform/observability/log.server";
import { findBusinessById } from "#models/businesses";
import {
  addCalendarBusy,
  deleteCalendarConnection,
  deleteCalendarEvent,
  findCalendarBooking,
  findCalendarConnection,
  findCalendarEvent,
  hasCalendarConnection,
  listUpcomingBookingIds,
  listCalendarConnections,
  recordCalendarError,
  recordCalendarSuccess,
  replaceCalendarBusy,
  saveCalendarConnection,
  saveCalendarEvent,
  type CalendarConnection,
} from "#models/calendar-connections";
import { announceBusinessChange } from "#models/analytics";
import type { Db } from "#models/db";
import {
  CalDavError,
  deleteEvent,
  discoverCalendar,
  putEvent,
  readBusy,
  type CalDavAccount,
  type CalDavProblem,
} from "~/providers/caldav.server";
import { calendarObjectIcs } from "~/lib/calendar/ics-feed";
import { zonedTimeToUtc } from "~/lib/zoned-time";
import { translatorFor } from "~/platform/i18n.server";
import { seal, unseal } from "~/platform/security/secret.server";
import type { AppJob, AppServices } from "~/platform/services.server";
import { ownerCalendarEvent } from "~/features/business/index.server";

/**
 * Two-way sync with the owner's own CalDAV calendar (issue 47, ADR 0037): its busy times block
 * slots, and every booking, move and cancellation is written to it.
 *
 * - Reading: `calendarSyncJob` runs every few minutes and replaces the business's stored busy
 *   times (calendar_busy, read by listBusyIntervals with the bookings) with the calendar's answer
 *   for the booking window; placing a booking checks the calendar again for its own time
 *   (`calendarBusyAt`).
 * - Writing: `queueCalendarWrite` is the one way a booking change reaches the calendar: a durable
 *   job inserted in the transaction of the change, whose handler makes the calendar's event
 *   match the booking as it is when the job runs (PUT with If-Match, DELETE when cancelled), under
 *   a UID of its own per booking. A job that fails (the server down) is retried; run twice, it
 *   writes the same event.
 */
const SEAL_PURPOSE = "caldav";

/** Sakina's own events, written by the push: they are bookings already, not busy times of the owner's. */
const ownEvent = (uid: string) => /^booking-\d+@sakina\.app$/.test(uid);

/** The cron of the busy-time reads. */
export const CALENDAR_SYNC_CRON = "*/3 * * * *";

/** A booking check at booking time waits this long for the calendar before going by the last sync. */
const BOOKING_CHECK_TIMEOUT_MS = 3_000;

function accountOf(services: AppServices, connection: CalendarConnection): (CalDavAccount & { calendarUrl: string }) | null {
  const password = unseal(services.signingSecret, SEAL_PURPOSE, connection.passwordSealed);
  if (password === null) return null;
  return {
    url: connection.calendarUrl,
    calendarUrl: connection.calendarUrl,
    username: connection.username,
    password,
    allowPrivateAddresses: services.env.CALDAV_PRIVATE_ADDRESSES === "allow",
  };
}

/** What the owner is told of a failure, in few words (stored; the page says it in the owner's language by its kind). */
function describe(error: unknown): string {
  if (error instanceof CalDavError) return `${error.problem}: ${error.message}`;
  return `unreachable: ${(error as Error).message ?? String(error)}`;
}

export function problemOf(stored: string | null): CalDavProblem | "sealed" | null {
  if (!stored) return null;
  const kind = stored.split(":")[0];
  return kind === "credentials" || kind === "not_calendar" || kind === "sealed" || kind === "private_address" ? kind : "unreachable";
}

/**
 * Connects the owner's calendar after a PROPFIND found it (the URL itself, or the first calendar
 * of the account the URL leads to); the password is sealed at rest. Then its busy times are read
 * at once and the upcoming bookings written to it.
 */
export async function connectCalendar(
  services: AppServices,
  businessId: number,
  input: { url: string; username: string; password: string },
): Promise<{ ok: true } | { ok: false; problem: CalDavProblem }> {
  let calendarUrl: string;
  try {
    calendarUrl = await discoverCalendar({ ...input, allowPrivateAddresses: services.env.CALDAV_PRIVATE_ADDRESSES === "allow" });
  } catch (error) {
    return { ok: false, problem: error instanceof CalDavError ? error.problem : "unreachable" };
  }
  await saveCalendarConnection(services.db, {
    businessId,
    calendarUrl,
    username: input.username,
    passwordSealed: seal(services.signingSecret, SEAL_PURPOSE, input.password),
  });
  const upcoming = await listUpcomingBookingIds(services.db, businessId);
  await services.db.transaction(async (tx) => {
    await services.jobs.enqueue(calendarReadJob, { businessId }, { tx });
    for (const bookingId of upcoming) await queueCalendarWrite(services, tx, { id: bookingId, businessId });
  });
  return { ok: true };
}

export async function disconnectCalendar(services: AppServices, businessId: number) {
  await deleteCalendarConnection(services.db, businessId);
  await announceBusinessChange(services.db, businessId);
}

/**
 * The one way a booking's change (made, moved, cancelled, confirmed, a no-show) is written to the
 * owner's calendar: its job, inserted in `tx`, the transaction of the change, so a crash after the
 * commit still writes it. Nothing is queued for a business without a calendar connected.
 * tests/unit/after-commit-jobs.test.ts checks that every booking change goes through here.
 */
export async function queueCalendarWrite(services: AppServices, tx: Db, booking: { id: number; businessId: number }) {
  if (!(await hasCalendarConnection(tx, booking.businessId))) return;
  await services.jobs.enqueue(calendarWriteJob, { bookingId: booking.id, businessId: booking.businessId }, { tx });
}

/** Makes the calendar's event of one booking match the booking as it is now. */
export const calendarWriteJob: AppJob<{ bookingId: number; businessId: number }> = {
  name: "calendar-write",
  retryLimit: 10,
  retryDelaySeconds: 30,
  expireInSeconds: 120,
  async handle({ bookingId, businessId }, services) {
    const connection = await findCalendarConnection(services.db, businessId);
    if (!connection) return;
    const account = accountOf(services, connection);
    if (!account) {
      await recordCalendarError(services.db, businessId, "sealed: the password cannot be opened (SESSION_SECRET changed?)");
      return;
    }
    try {
      await writeBooking(services, account, connection, bookingId);
      await recordCalendarSuccess(services.db, businessId);
    } catch (error) {
      await recordCalendarError(services.db, businessId, describe(error));
      throw error;
    }
  },
};

async function writeBooking(services: AppServices, account: CalDavAccount, connection: CalendarConnection, bookingId: number) {
  const booking = await findCalendarBooking(services.db, bookingId);
  const stored = await findCalendarEvent(services.db, bookingId);
  const href = stored?.href ?? new URL(`sakina-booking-${bookingId}.ics`, connection.calendarUrl.replace(/\/?$/, "/")).toString();
  if (!booking || booking.businessId !== connection.businessId || booking.status === "cancelled") {
    // Cancelled (or gone): the time is free again in the owner's calendar too.
    await deleteEvent(account, href, stored?.etag ?? null);
    if (stored) await deleteCalendarEvent(services.db, bookingId);
    return;
  }
  const business = await findBusinessById(services.db, booking.businessId);
  if (!business) return;
  const t = await translatorFor(business.defaultLanguage);
  const ics = calendarObjectIcs(ownerCalendarEvent(t, booking, services.publicOrigin()));
  // Written before the PUT with the ETag last known: a crash after the PUT leaves a row whose
  // ETag is stale, and the next write's If-Match fails once and reads the current one (putEvent).
  const etag = await putEvent(account, href, ics, stored?.etag ?? null);
  await saveCalendarEvent(services.db, { bookingId, businessId: connection.businessId, href, etag });
}

/**
 * The window of busy times kept: from the day before (a long event reaching into today) to the end
 * of the business's booking window (its setting, 60 days by default), a day past it for any offset.
 */
function syncWindow(now: number, bookingWindowDays: number) {
  return { from: now - 86_400_000, to: now + (bookingWindowDays + 1) * 86_400_000 };
}

/** Reads one business's busy times into calendar_busy; the caches empty when they changed. */
export async function syncCalendar(services: AppServices, businessId: number, now = Date.now()) {
  const connection = await findCalendarConnection(services.db, businessId);
  if (!connection) return;
  const business = await findBusinessById(services.db, businessId);
  if (!business) return;
  const account = accountOf(services, connection);
  if (!account) {
    await recordCalendarError(services.db, businessId, "sealed: the password cannot be opened (SESSION_SECRET changed?)");
    return;
  }
  const window = syncWindow(now, business.bookingWindowDays);
  try {
    const busy = await readBusy(account, window.from, window.to, {
      skip: ownEvent,
      dayStart: (date) => zonedTimeToUtc(date, 0, business.timeZone),
    });
    const changed = await replaceCalendarBusy(services.db, businessId, new Date(window.from), new Date(window.to), busy);
    await recordCalendarSuccess(services.db, businessId);
    if (changed) await announceBusinessChange(services.db, businessId);
  } catch (error) {
    await recordCalendarError(services.db, businessId, describe(error));
    throw error;
  }
}

/** One business's read (queued on connect, and by the schedule for every connected business). */
export const calendarReadJob: AppJob<{ businessId: number }> = {
  name: "calendar-read",
  // A failed read is not worth retrying for long: the next scheduled read comes in minutes.
  retryLimit: 2,
  retryDelaySeconds: 20,
  expireInSeconds: 120,
  async handle({ businessId }, services) {
    await syncCalendar(services, businessId);
  },
};

/** Every few minutes: a read for every connected business, each a job of its own (one slow server holds up no other). */
export const calendarSyncJob: AppJob<object> = {
  name: "calendar-sync",
  retryLimit: 1,
  retryDelaySeconds: 30,
  async handle(_data, services) {
    for (const connection of await listCalendarConnections(services.db)) {
      await services.jobs.enqueue(
        calendarReadJob,
        { businessId: connection.businessId },
        { singletonKey: `calendar-read-${connection.businessId}` },
      );
    }
  },
};

/**
 * Placing a booking asks the calendar again about its own time, so an event the owner added since
 * the last sync is not double-booked: "busy" when the calendar has something there (stored, so
 * the pages show it too), "free" otherwise. When the calendar does not answer within a few
 * seconds (or a business has none), the last sync's busy times decide, as they did for the page:
 * an outage of the owner's calendar server does not stop their bookings (ADR 0037).
 */
export async function calendarBusyAt(services: AppServices, businessId: number, timeZone: string, start: number, end: number) {
  const connection = await findCalendarConnection(services.db, businessId);
  if (!connection) return false;
  const account = accountOf(services, connection);
  if (!account) return false;
  try {
    const busy = await readBusy(account, start, end, {
      skip: ownEvent,
      dayStart: (date) => zonedTimeToUtc(date, 0, timeZone),
      timeoutMs: BOOKING_CHECK_TIMEOUT_MS,
    });
    const overlapping = busy.filter((interval) => interval.start < end && interval.end > start);
    if (overlapping.length === 0) return false;
    await addCalendarBusy(services.db, businessId, overlapping);
    await announceBusinessChange(services.db, businessId);
    return true;
  } catch (error) {
    log.warn({ businessId, problem: describe(error) }, "calendar check at booking time failed; going by the last sync");
    return false;
  }
}

/** What the settings page shows of the connection. */
export async function calendarConnectionStatus(services: AppServices, businessId: number) {
  const connection = await findCalendarConnection(services.db, businessId);
  if (!connection) return null;
  const failing = connection.lastErrorAt !== null && (connection.lastSyncAt === null || connection.lastErrorAt > connection.lastSyncAt);
  const { rows } = await services.database.executeSql(
    `SELECT count(*) AS waiting FROM pgboss.job WHERE name = $1 AND data->>'businessId' = $2 AND state < 'completed'`,
    [calendarWriteJob.name, String(businessId)],
  );
  return {
    calendarUrl: connection.calendarUrl,
    username: connection.username,
    lastSyncAt: connection.lastSyncAt,
    lastErrorAt: failing ? connection.lastErrorAt : null,
    problem: failing ? problemOf(connection.lastError) : null,
    waitingWrites: Number((rows[0] as { waiting: number | string } | undefined)?.waiting ?? 0),
  };
}
