import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Issue 47: every change of a booking's time or status made by a person (the owner, the
// customer on their page or on a call) goes through changeBooking, which tells both sides,
// updates the calendar file and settles the calls in the change's own transaction. The sources
// are read here: the model functions that make such a change are called only there, and the
// model layer has no other update that sets a booking's time or cancels it.
const root = path.resolve(import.meta.dirname, "../..");
const CHANGE = "app/features/booking/booking-change.server.ts";
const MODEL = "models/bookings.ts";

/** The model's changes of a booking's time or status by a person. */
const CHANGES = ["confirmBusinessBooking", "cancelBusinessBooking", "moveBusinessBooking", "requestBookingReschedule"];
/** The statuses a machine sets, not a person: the last confirmation call found nobody. */
const MACHINE_STATUSES = ["unreachable"];

/** Each call of the general status setter in a source, with the status it sets (null when not a literal). */
function statusSets(text: string) {
  return [...text.matchAll(/\bsetBookingStatus\(([^;]*?)\)\s*;/g)].map((match) => ({
    line: text.slice(0, match.index).split("\n").length,
    status: /^[^,]+,[^,]+,\s*"(\w+)"/.exec(match[1]!)?.[1] ?? null,
  }));
}

function sources(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sources(relative);
    return /\.(ts|tsx)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [relative] : [];
  });
}

const read = (file: string) => readFileSync(path.join(root, file), "utf8");

/** Where a name is used (called, imported or passed on) outside its definition. */
function usesOf(names: string[], files: string[]) {
  return files.flatMap((file) => {
    const text = read(file);
    return names.flatMap((name) =>
      [...text.matchAll(new RegExp(`\\b${name}\\b`, "g"))]
        .filter((match) => !/export (async )?function $/.test(text.slice(Math.max(0, match.index - 30), match.index)))
        .map((match) => `${file}:${text.slice(0, match.index).split("\n").length}: ${name}`),
    );
  });
}

/** The `.set({...})` bodies of every update of the bookings table in a source. */
function bookingUpdates(text: string) {
  return [...text.matchAll(/\.update\(bookings\)\s*\.set\(\{/g)].map((match) => {
    let depth = 1;
    let at = match.index + match[0].length;
    for (; at < text.length && depth > 0; at++) {
      if (text[at] === "{") depth++;
      if (text[at] === "}") depth--;
    }
    const line = text.slice(0, match.index).split("\n").length;
    return { line, body: text.slice(match.index + match[0].length, at - 1) };
  });
}

describe("a change of a booking", () => {
  it("is made only through changeBooking", () => {
    const outside = usesOf(CHANGES, [...sources("app"), ...sources("emails")]).filter((use) => !use.startsWith(`${CHANGE}:`));
    expect(outside).toEqual([]);
  });

  it("has no other way to move or cancel a booking in the model", () => {
    const model = read(MODEL);
    const exported = [...model.matchAll(/export (?:async )?function (\w+)/g)].map((m) => ({ name: m[1]!, at: m.index }));
    const owner = (index: number) => exported.filter((f) => f.at < index).at(-1)?.name ?? "";
    const strays = bookingUpdates(model)
      // A key of the update (not a value read from the row, as a reminder's claim reads startsAt).
      .filter(({ body }) => /(?:^|,)\s*startsAt\s*(?::|,|$)|status: "cancelled"/.test(body))
      .map(({ line }) => owner(model.split("\n").slice(0, line).join("\n").length))
      .filter((name) => !CHANGES.includes(name));
    expect(strays).toEqual([]);
    // No status is set to "cancelled" by the general setter outside the one function.
    const cancelsBySetter = [...sources("app")]
      .filter((file) => file !== CHANGE)
      .filter((file) => /setBookingStatus\([^)]*"cancelled"/.test(read(file)));
    expect(cancelsBySetter).toEqual([]);
  });

  it("sets no status a person decides (confirmed, cancelled, another time asked for) through the general setter", () => {
    // The call tools once set the customer's answer this way, e-mailing nobody.
    const strays = sources("app").flatMap((file) =>
      statusSets(read(file))
        .filter(({ status }) => status === null || !MACHINE_STATUSES.includes(status))
        .map(({ line, status }) => `${file}:${line}: ${status ?? "a status not written out"}`),
    );
    expect(strays).toEqual([]);
    expect(usesOf(["setBookingStatus"], sources("app")).length).toBeGreaterThan(0);
  });

  it("finds a path around it", () => {
    // What the test reads would catch: a route calling the model directly.
    const text = "const row = await cancelBusinessBooking(services.db, business.id, booking.id);";
    expect(new RegExp(`\\b${CHANGES[1]}\\b`).test(text)).toBe(true);
    const updates = bookingUpdates("await db.update(bookings).set({ startsAt, endsAt, updatedAt: new Date() }).where(x);");
    expect(updates).toHaveLength(1);
    expect(updates[0]!.body).toMatch(/(?:^|,)\s*startsAt\s*(?::|,|$)/);
    // The call tools' old way around it: a status passed on, not written out.
    expect(statusSets("const changed = await setBookingStatus(tx, booking.id, status, outcome);")).toEqual([{ line: 1, status: null }]);
    expect(statusSets('await setBookingStatus(services.db, booking.id, "unreachable", "unreachable");')[0]!.status).toBe("unreachable");
  });
});
