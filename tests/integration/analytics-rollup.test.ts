import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { btree_gist } from "@electric-sql/pglite/contrib/btree_gist";
import { and, eq, inArray, sql } from "drizzle-orm";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bookingFigures, callFigures } from "#models/analytics";
import { cancelBusinessBooking, markBusinessBookingNoShow, moveBusinessBooking } from "#models/bookings";
import type { Db } from "#models/db";
import { bookings, businesses, businessServices, calls } from "#models/schema";
import { migrationsFolder, openDatabase, type DatabaseHandle } from "~/platform/db.server";
import { createIsolatedDatabase } from "../support/database";

// The daily roll-up the analytics page reads (migration 0019) against a fresh count of the raw
// rows, after every kind of write the application makes and a few it does not (bulk statements,
// a business's deletion). Runs on PGlite, and on PostgreSQL with DATABASE_URL.

type Rows = { rows: Record<string, unknown>[] };
const rowsOf = async (db: Db, query: ReturnType<typeof sql>) => ((await db.execute(query)) as unknown as Rows).rows;

/** Every roll-up row that counts something, in one sorted list of lines. */
async function rollup(db: Db) {
  const rows = await rowsOf(
    db,
    sql`
    select 'status' as kind, business_id, day::text as day, status::text as key, bookings as n, 0 as seconds from booking_day_statuses
    union all select 'weekday', business_id, day::text, weekday::text, bookings, 0 from booking_day_weekdays
    union all select 'hour', business_id, day::text, hour::text, bookings, 0 from booking_day_hours
    union all select 'call', business_id, day::text, result, calls, seconds from call_day_results`,
  );
  const negative = rows.filter((r) => Number(r.n) < 0 || Number(r.seconds) < 0);
  expect(negative).toEqual([]);
  return rows
    .filter((r) => Number(r.n) !== 0 || Number(r.seconds) !== 0)
    .map((r) => `${r.kind} ${r.business_id} ${r.day} ${r.key} ${r.n} ${r.seconds}`)
    .sort();
}

/** The same figures counted afresh from bookings and calls, in each business's time zone now. */
async function fresh(db: Db) {
  const rows = await rowsOf(
    db,
    sql`
    select 'status' as kind, k.business_id, (k.created_at at time zone b.time_zone)::date::text as day, k.status::text as key,
           count(*)::int as n, 0 as seconds
    from bookings k join businesses b on b.id = k.business_id group by 1, 2, 3, 4
    union all
    select 'weekday', k.business_id, (k.created_at at time zone b.time_zone)::date::text,
           extract(isodow from k.starts_at at time zone b.time_zone)::int::text, count(*)::int, 0
    from bookings k join businesses b on b.id = k.business_id where k.status <> 'cancelled' group by 1, 2, 3, 4
    union all
    select 'hour', k.business_id, (k.created_at at time zone b.time_zone)::date::text,
           extract(hour from k.starts_at at time zone b.time_zone)::int::text, count(*)::int, 0
    from bookings k join businesses b on b.id = k.business_id where k.status <> 'cancelled' group by 1, 2, 3, 4
    union all
    select 'call', c.business_id, (c.started_at at time zone b.time_zone)::date::text,
           analytics_call_result(c.outcome, c.answered_by, c.status), count(*)::int, coalesce(sum(c.duration_seconds), 0)::int
    from calls c join businesses b on b.id = c.business_id
    where c.purpose = 'booking_confirmation' and c.started_at is not null group by 1, 2, 3, 4`,
  );
  return rows.map((r) => `${r.kind} ${r.business_id} ${r.day} ${r.key} ${r.n} ${r.seconds}`).sort();
}

let isolated: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let database: DatabaseHandle;
let db: Db;

beforeAll(async () => {
  isolated = await createIsolatedDatabase();
  database = await openDatabase(isolated.databaseUrl ? { databaseUrl: isolated.databaseUrl } : { dataDir: "memory://" });
  db = database.db;
});

afterAll(async () => {
  await database?.close();
  await isolated?.drop();
});

let made = 0;
async function business(name: string, timeZone: string) {
  made += 1;
  const [row] = await db
    .insert(businesses)
    .values({
      name,
      bookingLink: `rollup-${made}`,
      ownerName: "Owner",
      email: `rollup-${made}@example.com`,
      phone: "+442079460958",
      timeZone,
    })
    .returning();
  const [service] = await db
    .insert(businessServices)
    .values({ businessId: row!.id, name: "Visit", priceCents: 1000, currency: "GBP", durationMinutes: 30 })
    .returning();
  return { id: row!.id, serviceId: service!.id };
}

let guests = 0;
function booking(
  owner: { id: number; serviceId: number },
  created: string,
  starts: string,
  status: (typeof bookings.$inferInsert)["status"],
) {
  guests += 1;
  const startsAt = new Date(starts);
  return {
    businessId: owner.id,
    serviceId: owner.serviceId,
    startsAt,
    endsAt: new Date(startsAt.getTime() + 30 * 60_000),
    customerName: `Guest ${guests}`,
    customerPhone: "+447700900123",
    manageTokenHash: `rollup-${guests}`,
    status,
    createdAt: new Date(created),
  };
}

describe("the analytics roll-up", () => {
  it("equals a fresh count after inserts, status changes, reschedules, deletes, call updates and a time zone change", async () => {
    const london = await business("Rollup London", "Europe/London");
    const york = await business("Rollup New York", "America/New_York");
    const doomed = await business("Rollup Closing", "Asia/Tokyo");

    // One statement of many rows (a bulk insert counts once per statement), then single ones.
    const inserted = await db
      .insert(bookings)
      .values([
        booking(london, "2026-03-28T00:30:00Z", "2026-03-28T09:00:00Z", "pending"),
        booking(london, "2026-03-29T00:30:00Z", "2026-03-29T23:30:00Z", "confirmed"), // Monday 00:30 BST
        booking(london, "2026-03-29T23:30:00Z", "2026-04-01T08:00:00Z", "unreachable"),
        booking(london, "2026-03-30T10:00:00Z", "2026-04-02T10:00:00Z", "cancelled"),
        booking(york, "2026-03-08T06:30:00Z", "2026-03-08T06:30:00Z", "pending"), // 01:30 EST, the night the clocks go forward
        booking(york, "2026-03-08T07:30:00Z", "2026-03-08T07:30:00Z", "confirmed"), // 03:30 EDT
        booking(doomed, "2026-03-10T01:00:00Z", "2026-03-11T01:00:00Z", "pending"),
      ])
      .returning();
    for (const [i, when] of ["2026-10-24T23:30:00Z", "2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z"].entries())
      inserted.push(
        (
          await db
            .insert(bookings)
            .values(booking(london, when, `2026-11-0${i + 1}T12:00:00Z`, "reschedule_requested"))
            .returning()
        )[0]!,
      );
    const [a, b, c, d, e, f, , g, h, k] = inserted.map((row) => row!);
    expect(await rollup(db)).toEqual(await fresh(db));

    // Status changes, by the application's own writes and by hand.
    await db.update(bookings).set({ status: "confirmed" }).where(eq(bookings.id, a!.id));
    expect(await cancelBusinessBooking(db, london.id, g!.id, new Date("2026-10-30T00:00:00Z"))).not.toBeNull();
    expect(await markBusinessBookingNoShow(db, york.id, e!.id, new Date("2026-03-09T00:00:00Z"))).not.toBeNull();
    await db.update(bookings).set({ status: "pending" }).where(eq(bookings.id, d!.id)); // cancelled → live again
    // Reschedules: to another weekday and hour, to the same hour a week on (nothing moves), and
    // a status and a time changed at once; then a write that changes nothing counted.
    expect(
      (
        await moveBusinessBooking(
          db,
          london.id,
          b!.id,
          new Date("2026-04-03T15:00:00Z"),
          new Date("2026-04-03T15:30:00Z"),
          undefined,
          new Date("2026-03-29T00:00:00Z"),
        )
      ).kind,
    ).toBe("moved");
    await db
      .update(bookings)
      .set({ startsAt: new Date("2026-11-08T12:00:00Z"), endsAt: new Date("2026-11-08T12:30:00Z") })
      .where(eq(bookings.id, h!.id));
    await db
      .update(bookings)
      .set({ status: "cancelled", startsAt: new Date("2026-03-12T09:00:00Z"), endsAt: new Date("2026-03-12T09:30:00Z") })
      .where(eq(bookings.id, f!.id));
    await db.update(bookings).set({ notes: "Window seat", callState: "done:confirmed" }).where(eq(bookings.id, c!.id));
    // Many rows in one update, and a booking made later than it was thought to be.
    await db
      .update(bookings)
      .set({ status: "unreachable" })
      .where(inArray(bookings.id, [c!.id, k!.id]));
    await db
      .update(bookings)
      .set({ createdAt: new Date("2026-03-31T12:00:00Z") })
      .where(eq(bookings.id, c!.id));
    expect(await rollup(db)).toEqual(await fresh(db));

    // Deletes: one, then several in one statement.
    await db.delete(bookings).where(eq(bookings.id, a!.id));
    await db.delete(bookings).where(inArray(bookings.id, [g!.id, k!.id]));
    expect(await rollup(db)).toEqual(await fresh(db));

    // Calls: placed, then updated many times over (status, answer, outcome, length), as the
    // provider's callbacks and the agent write them; one that was never placed; another purpose.
    const call = (fields: Partial<typeof calls.$inferInsert>) =>
      db
        .insert(calls)
        .values({
          purpose: "booking_confirmation",
          language: "en",
          voice: "alloy",
          businessId: london.id,
          timeLimitSeconds: 300,
          ...fields,
        })
        .returning()
        .then((rows) => rows[0]!);
    const [bulk1, bulk2] = await db
      .insert(calls)
      .values([
        {
          purpose: "booking_confirmation",
          language: "en",
          voice: "alloy",
          businessId: york.id,
          timeLimitSeconds: 300,
          status: "completed",
          startedAt: new Date("2026-03-08T04:00:00Z"),
          durationSeconds: 40,
          outcome: "confirmed",
        },
        {
          purpose: "demo",
          language: "en",
          voice: "alloy",
          businessId: york.id,
          timeLimitSeconds: 300,
          status: "completed",
          startedAt: new Date("2026-03-08T04:00:00Z"),
          durationSeconds: 15,
        },
      ])
      .returning();
    const queued = await call({ status: "queued" });
    const live = await call({ status: "initiated", startedAt: new Date("2026-03-29T00:10:00Z") });
    const machine = await call({ status: "ringing", startedAt: new Date("2026-03-29T23:10:00Z") });
    const doomedCall = await call({
      businessId: doomed.id,
      status: "completed",
      startedAt: new Date("2026-03-10T02:00:00Z"),
      durationSeconds: 12,
    });
    expect(await rollup(db)).toEqual(await fresh(db));
    const setCall = (id: number, fields: Partial<typeof calls.$inferInsert>) => db.update(calls).set(fields).where(eq(calls.id, id));
    await setCall(live.id, { status: "in-progress", answeredBy: "human" });
    await setCall(live.id, { transcript: [{ role: "agent", text: "Hello", at: "2026-03-29T00:10:05Z" }] });
    await setCall(live.id, { outcome: "reschedule requested: Friday" });
    await setCall(live.id, { status: "completed", durationSeconds: 75 });
    await setCall(live.id, { outcome: "confirmed", durationSeconds: 80 });
    await setCall(machine.id, { status: "completed", answeredBy: "machine_end_beep", durationSeconds: 20 });
    await setCall(queued.id, { status: "initiated", startedAt: new Date("2026-03-30T09:00:00Z") });
    await setCall(queued.id, { status: "no-answer" });
    await setCall(bulk2!.id, { purpose: "booking_confirmation" });
    await setCall(bulk1!.id, { businessId: null });
    await db
      .update(calls)
      .set({ status: "failed" })
      .where(inArray(calls.id, [machine.id, doomedCall.id]));
    await db.delete(calls).where(eq(calls.id, bulk2!.id));
    expect(await rollup(db)).toEqual(await fresh(db));

    // The business's clock changes: every date and hour of it is counted again in the new zone.
    await db.update(businesses).set({ timeZone: "Asia/Riyadh" }).where(eq(businesses.id, london.id));
    await db.update(businesses).set({ name: "Renamed, same zone" }).where(eq(businesses.id, york.id));
    expect(await rollup(db)).toEqual(await fresh(db));

    // A business deleted with everything it had: its bookings go (cascade) and its calls lose it.
    await db.delete(businesses).where(eq(businesses.id, doomed.id));
    expect(await rowsOf(db, sql`select 1 from booking_day_statuses where business_id = ${doomed.id}`)).toEqual([]);
    expect(await rollup(db)).toEqual(await fresh(db));

    // The backfill (analytics_rebuild for every business) counts the same from nothing.
    const before = await rollup(db);
    for (const table of ["booking_day_statuses", "booking_day_weekdays", "booking_day_hours", "call_day_results"])
      await db.execute(sql.raw(`delete from ${table}`));
    expect(await rollup(db)).toEqual([]);
    await db.execute(sql`select analytics_rebuild(id) from businesses`);
    expect(await rollup(db)).toEqual(before);

    // Any window, not only whole local dates: what the first and last dates hold outside it is
    // taken back off. Compared with a count of the raw rows in [from, to).
    const windows: [string, string][] = [
      ["2026-03-29T00:20:00Z", "2026-03-31T11:00:00Z"],
      ["2026-03-28T00:00:00Z", "2026-03-30T10:00:00Z"],
      ["2026-03-29T23:30:00Z", "2026-03-29T23:30:01Z"],
    ];
    for (const [from, to] of windows) {
      const raw = await rowsOf(
        db,
        sql`select status::text as status, count(*)::int as n from bookings
            where business_id = ${london.id} and created_at >= ${from}::timestamptz and created_at < ${to}::timestamptz group by status`,
      );
      const figures = await bookingFigures(db, london.id, new Date(from), new Date(to));
      expect(figures.byStatus).toEqual(Object.fromEntries(raw.map((r) => [r.status, r.n])));
      const rawCalls = await rowsOf(
        db,
        sql`select count(*)::int as n, coalesce(sum(duration_seconds), 0)::int as seconds from calls
            where business_id = ${london.id} and purpose = 'booking_confirmation'
              and started_at >= ${from}::timestamptz and started_at < ${to}::timestamptz`,
      );
      const callsIn = await callFigures(db, london.id, new Date(from), new Date(to));
      expect({ n: callsIn.placed, seconds: callsIn.seconds }).toEqual(rawCalls[0]);
    }
  });
});

describe("the migration", () => {
  it("adds no_show and backfills the roll-up from the bookings and calls a database already holds", async () => {
    // A copy of the migrations as they were before the roll-up (up to 0016), applied first.
    const folder = await mkdtemp(path.join(os.tmpdir(), "sakina-migrations-"));
    await cp(migrationsFolder, folder, { recursive: true });
    const journalPath = path.join(folder, "meta", "_journal.json");
    const journal = JSON.parse(await readFile(journalPath, "utf8")) as { entries: { tag: string }[] };
    const upTo = journal.entries.findIndex((entry) => entry.tag.startsWith("0017_"));
    expect(upTo).toBeGreaterThan(0);
    await writeFile(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, upTo) }));

    const older = await createIsolatedDatabase();
    let pglite: PGlite | undefined;
    let pool: pg.Pool | undefined;
    let oldDb: Db;
    if (older.databaseUrl) {
      pool = new pg.Pool({ connectionString: older.databaseUrl, max: 2 });
      oldDb = drizzlePg(pool) as unknown as Db;
      await migratePg(drizzlePg(pool), { migrationsFolder: folder });
    } else {
      pglite = await PGlite.create("memory://", { extensions: { btree_gist } });
      oldDb = drizzlePglite(pglite) as unknown as Db;
      await migratePglite(drizzlePglite(pglite), { migrationsFolder: folder });
    }
    try {
      const [old] = (await rowsOf(
        oldDb,
        sql`insert into businesses (name, booking_link, owner_name, email, phone, time_zone)
            values ('Older', 'older', 'Owner', 'older@example.com', '+442079460958', 'Europe/Paris') returning id`,
      )) as { id: number }[];
      const [service] = (await rowsOf(
        oldDb,
        sql`insert into business_services (business_id, name, price_cents, currency, duration_minutes)
            values (${old!.id}, 'Visit', 1000, 'EUR', 30) returning id`,
      )) as { id: number }[];
      await oldDb.execute(sql`
        insert into bookings (business_id, service_id, starts_at, ends_at, customer_name, customer_phone, manage_token_hash, status, created_at)
        select ${old!.id}, ${service!.id}, timestamptz '2026-06-01 08:00Z' + g * interval '1 hour', timestamptz '2026-06-01 08:30Z' + g * interval '1 hour',
               'Guest', '+447700900123', 'older-' || g,
               (array['pending','confirmed','cancelled','reschedule_requested','unreachable'])[1 + g % 5]::booking_status,
               timestamptz '2026-05-20 21:30Z' + g * interval '3 hours'
        from generate_series(1, 40) g`);
      await oldDb.execute(sql`
        insert into calls (purpose, language, voice, business_id, status, outcome, time_limit_seconds, started_at, duration_seconds)
        select 'booking_confirmation', 'en', 'alloy', ${old!.id}, 'completed', (array['confirmed', null, 'voicemail'])[1 + g % 3], 300,
               timestamptz '2026-05-20 22:30Z' + g * interval '5 hours', 10 + g
        from generate_series(1, 20) g`);
    } finally {
      await pool?.end();
    }

    // Now the rest, all pending migrations in one transaction as the app runs them at start.
    const upgraded = await openDatabase(older.databaseUrl ? { databaseUrl: older.databaseUrl } : { pglite: pglite! });
    try {
      const counted = await rollup(upgraded.db);
      expect(counted.length).toBeGreaterThan(0);
      expect(counted).toEqual(await fresh(upgraded.db));
      // The new status is there to use, and counted.
      const [first] = await upgraded.db
        .select()
        .from(bookings)
        .where(and(eq(bookings.status, "pending")))
        .limit(1);
      await upgraded.db.update(bookings).set({ status: "no_show" }).where(eq(bookings.id, first!.id));
      expect((await rollup(upgraded.db)).some((line) => line.includes(" no_show 1 "))).toBe(true);
      expect(await rollup(upgraded.db)).toEqual(await fresh(upgraded.db));
    } finally {
      await upgraded.close();
      await older.drop();
      await rm(folder, { recursive: true, force: true });
    }
  });
});
