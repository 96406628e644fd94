import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Work that must follow a commit (issue 45.4) is queued in the same transaction: a booking's
// confirmation call (made or moved), a call's dialling job, a paid call's refund, a paid business's
// credentials and subscription. A job sent after
// the commit is lost when the process dies in between, and the row waits for work nobody will do.
// The sources are read here: every send of these kinds passes the caller's transaction (`tx`),
// except the engine's re-queues of a call that already has its job (they run inside that job: a
// failed send fails it, and the queue retries it). A new send outside a transaction fails this test.
const root = path.resolve(import.meta.dirname, "../..");
const GATE = "app/calls/gate.server.ts";
const ENGINE = "app/calls/engine.server.ts";
const BOOKING = "app/features/booking/booking.server.ts";

/** The kinds whose job must commit with the row that needs it. */
const FOLLOW_A_COMMIT = [
  "bookingConfirmationCallJob",
  "placeCallJob",
  "empathyRefundJob",
  "ownerCredentialsJob",
  "businessSubscriptionJob",
  "calendarWriteJob",
];

function sources(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sources(relative);
    return /\.(ts|tsx)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [relative] : [];
  });
}

const read = (file: string) => readFileSync(path.join(root, file), "utf8");

/** The text between the parentheses of the call whose "(" is at `open`. */
function callArguments(text: string, open: number) {
  let depth = 0;
  for (let at = open; at < text.length; at++) {
    if (text[at] === "(") depth++;
    if (text[at] === ")" && --depth === 0) return text.slice(open + 1, at);
  }
  throw new Error("unbalanced call");
}

/** The top-level arguments of a call, as source text. */
function splitArguments(args: string) {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let at = 0; at < args.length; at++) {
    const char = args[at]!;
    if ("([{".includes(char)) depth++;
    if (")]}".includes(char)) depth--;
    if (char === "," && depth === 0) {
      parts.push(args.slice(start, at).trim());
      start = at + 1;
    }
  }
  parts.push(args.slice(start).trim());
  return parts.filter(Boolean);
}

/** Every `jobs.enqueue(kind, data, options)` in app/: where, which kind, and its options' text. */
function sends() {
  return sources("app").flatMap((file) => {
    const text = read(file);
    return [...text.matchAll(/\bjobs\.enqueue\(/g)].map((match) => {
      const open = match.index + match[0].length - 1;
      const [kind = "", , options = ""] = splitArguments(callArguments(text, open));
      const line = text.slice(0, match.index).split("\n").length;
      return { where: `${file}:${line}`, file, kind, options };
    });
  });
}

describe("work that must follow a commit", () => {
  it("is sent in the caller's transaction, wherever it is sent", () => {
    const outside = sends()
      .filter((send) => FOLLOW_A_COMMIT.includes(send.kind) && send.file !== ENGINE)
      .filter((send) => !/\btx\b/.test(send.options))
      .map((send) => `${send.where}: ${send.kind} without tx`);
    expect(outside).toEqual([]);
  });

  it("asks for a booking's confirmation call through one function, which needs a transaction", () => {
    const confirmations = sends().filter((send) => send.kind === "bookingConfirmationCallJob");
    expect(confirmations.map((send) => send.file)).toEqual([BOOKING]);
    expect(read(BOOKING)).toMatch(/export async function queueConfirmationCall\(\s*services: AppServices,\s*tx: Db,/);
  });

  it("inserts a call and its dialling job in one transaction, the caller's or the gate's own", () => {
    const gate = read(GATE);
    expect(gate).toMatch(/if \(!tx\) return services\.db\.transaction\(\(own\) => queueCall\(services, request, own\)\);/);
    // The engine only re-queues calls that exist: it never makes one (call-gate.test.ts).
    expect(sends().filter((send) => send.kind === "placeCallJob" && ![GATE, ENGINE].includes(send.file))).toEqual([]);
  });

  it("writes every booking change to the owner's calendar through one function, in the change's transaction", () => {
    const SYNC = "app/features/booking/calendar-sync.server.ts";
    expect(
      sends()
        .filter((send) => send.kind === "calendarWriteJob")
        .map((send) => send.file),
    ).toEqual([SYNC]);
    expect(read(SYNC)).toMatch(/export async function queueCalendarWrite\(services: AppServices, tx: Db,/);
    // A new booking's follow-up (the page's and the agents' placeBooking) queues it with the call.
    expect(read(BOOKING)).toMatch(
      /await queueConfirmationCall\(services, tx, booking, request\.origin\);\s*await queueCalendarWrite\(services, tx, booking\);/,
    );
    expect(bookingChangesWithoutCalendarWrite()).toEqual([]);
  });

  it("finds a booking change that does not write the calendar", () => {
    const text = "const row = await cancelBooking(tx, booking.id);\nif (row) await announceBusinessChange(services.db, id);";
    expect(changesWithoutWrite("x.ts", text)).toEqual(["x.ts:1: cancelBooking"]);
  });

  it("finds a send outside a transaction", () => {
    const text = "await services.jobs.enqueue(placeCallJob, { callId }, { startAfter: when });";
    const [kind, , options = ""] = splitArguments(callArguments(text, text.indexOf("(")));
    expect(kind).toBe("placeCallJob");
    expect(options).not.toMatch(/\btx\b/);
  });
});

/** The model functions that change a booking's time or state. */
const BOOKING_CHANGES = [
  "cancelBooking",
  "rescheduleBooking",
  "cancelBusinessBooking",
  "moveBusinessBooking",
  "confirmBusinessBooking",
  "setBookingStatus",
];

/**
 * Changes the owner's calendar does not need: the booking's event stays as it is (its time and
 * its busy block do not change). A no-show is marked after the appointment; "unreachable" keeps
 * the event tentative, as pending was.
 */
const CALENDAR_NEEDS_NOTHING = [/setBookingStatus\(services\.db, booking\.id, "unreachable", "unreachable"\)/];

/** Each call of a booking change, in `text`, not followed by queueCalendarWrite within its transaction (the next few lines). */
function changesWithoutWrite(file: string, text: string) {
  const found: string[] = [];
  for (const match of text.matchAll(new RegExp(`\\b(${BOOKING_CHANGES.join("|")})\\(`, "g"))) {
    const before = text.slice(Math.max(0, match.index - 40), match.index);
    if (/(function|import[^;]*|\{[^}]*)\s*$/.test(before) && !/await\s*$/.test(before)) continue;
    const call = text.slice(match.index, match.index + 300);
    if (CALENDAR_NEEDS_NOTHING.some((allowed) => allowed.test(call))) continue;
    const after = text.slice(match.index, match.index + 500);
    if (/queueCalendarWrite\(services, tx,/.test(after)) continue;
    found.push(`${file}:${text.slice(0, match.index).split("\n").length}: ${match[1]}`);
  }
  return found;
}

/**
 * changeBooking (the owner's and the customer's changes) applies the change in a helper and queues
 * the write right after it, in the same transaction: its `apply` is read as part of that.
 */
const CHANGE = "app/features/booking/booking-change.server.ts";

function bookingChangesWithoutCalendarWrite() {
  return sources("app").flatMap((file) => {
    const text = read(file);
    if (file !== CHANGE) return changesWithoutWrite(file, text);
    expect(text).toMatch(/const changed = await apply\(tx, [^)]*\);[\s\S]{0,400}await queueCalendarWrite\(services, tx, after\);/);
    return changesWithoutWrite(file, text.slice(0, text.indexOf("async function apply(")));
  });
}
