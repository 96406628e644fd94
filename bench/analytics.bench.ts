// Analytics benchmark: the owner's analytics queries for one business with 100,000 bookings and
// as many confirmation calls, in PGlite (the default database), for the 7, 30 and 90-day periods.
//
//   npm run bench:analytics [-- --bookings=100000 --runs=30 --explain --detail]
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:analytics   (a PostgreSQL server)
//
// Seeds, in SQL, one business in Europe/London with `--bookings` bookings (all statuses;
// appointments one after another so the no-overlap constraint holds, each booked in the 30 days
// before it) and one confirmation call each (every result, with lengths), plus a neighbour with a
// tenth as many, so the index has to pick the business out. Two layouts of the same business are timed:
//   - spread: appointments evenly over the last two years (the 90-day period holds about 12,000);
//   - recent: all of them made in the last 90 days (the worst case for the 90-day period).
// The seed goes through the triggers that keep the daily roll-up (migration 0019), as every write
// does. Timed: what the analytics page asks the database (models/analytics.ts: the bookings by
// status, weekday, hour and day, and the calls by result with their length, read from the roll-up
// by date, less what the period's first and last dates hold outside it; and the plan's calls used
// this period, loadPlanUsage: plan_calls since the period's start, seeded for every call in it),
// one after another, as one page load does. After 3 warm-up runs per period,
// `--runs` timed runs; prints median and p95 in ms, and FAIL (exit 1) if a median is 50 ms or more.
import os from "node:os";
import { PGlite } from "@electric-sql/pglite";
import { btree_gist } from "@electric-sql/pglite/contrib/btree_gist";
import { sql } from "drizzle-orm";
import pg from "pg";
import { openDatabase } from "../app/platform/db.server";
import { analyticsFigures } from "../app/features/analytics/analytics.server";
import { countPlanCallsSince } from "../models/businesses";

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const BOOKINGS = Number(arg("bookings") ?? 100_000);
const RUNS = Number(arg("runs") ?? 30);
const EXPLAIN = process.argv.includes("--explain");
const TARGET_MS = 50;
const PERIODS = [7, 30, 90] as const;
const TIME_ZONE = "Europe/London";
/** The monthly plan's period began 15 days ago: the page counts the calls admitted since. */
const PLAN_PERIOD_START = new Date(Date.now() - 15 * 86_400_000);

// With DATABASE_URL, a fresh database on that PostgreSQL server instead (dropped at the end).
const server = process.env.DATABASE_URL;
const benchDatabase = `sakina_bench_${process.pid}`;
async function admin(statement: string) {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  await client.query(statement);
  await client.end();
}
let database: Awaited<ReturnType<typeof openDatabase>>;
if (server) {
  await admin(`CREATE DATABASE ${benchDatabase}`);
  const url = new URL(server);
  url.pathname = `/${benchDatabase}`;
  database = await openDatabase({ databaseUrl: url.toString() });
} else {
  database = await openDatabase({ pglite: await PGlite.create("memory://", { extensions: { btree_gist } }) });
}
const { db } = database;

async function business(name: string) {
  const rows = (await db.execute(sql`
    insert into businesses (name, booking_link, owner_name, email, phone, time_zone, status, plan_status, activated_at,
                            plan_period_start, plan_period_end)
    values (${name}, ${name.toLowerCase().replace(/\W+/g, "-")}, 'Owner', ${`${name.replace(/\W+/g, "")}@example.com`}, '+442079460958',
            ${TIME_ZONE}, 'active', 'active', now() - interval '400 days', ${PLAN_PERIOD_START.toISOString()}::timestamptz,
            ${PLAN_PERIOD_START.toISOString()}::timestamptz + interval '1 month')
    returning id`)) as unknown as { rows: { id: number }[] };
  const id = rows.rows[0]!.id;
  const service = (await db.execute(sql`
    insert into business_services (business_id, name, price_cents, currency, duration_minutes)
    values (${id}, 'Haircut', 3000, 'GBP', 30) returning id`)) as unknown as { rows: { id: number }[] };
  return { id, serviceId: service.rows[0]!.id };
}

/**
 * `count` appointments one after another (so the no-overlap constraint holds) from `spreadDays`
 * days ago to 30 days ahead, each booked at a random moment of the 30 days before it (never
 * after now), and one confirmation call each.
 */
async function seed(target: { id: number; serviceId: number }, count: number, spreadDays: number) {
  await db.execute(sql`select setseed(0.2026)`);
  const step = ((spreadDays + 30) * 86_400) / count;
  await db.execute(sql`
    insert into bookings (business_id, service_id, starts_at, ends_at, customer_name, customer_phone, manage_token_hash, status, created_at)
    select ${target.id}, ${target.serviceId}, starts, starts + ${step}::float8 * interval '1 second',
           'Guest ' || g, '+447700900123', md5(${String(target.id)} || '-' || g),
           (array['pending','confirmed','confirmed','confirmed','cancelled','reschedule_requested','unreachable','no_show'])[1 + floor(random() * 8)::int]::booking_status,
           least(now() - random() * interval '1 hour', starts - random() * interval '30 days')
    from (select g, now() - ${spreadDays} * interval '1 day' + g * ${step}::float8 * interval '1 second' as starts
          from generate_series(1, ${count}) g) slots`);
  await db.execute(sql`
    insert into calls (purpose, language, voice, business_id, booking_id, status, outcome, answered_by, time_limit_seconds,
                       started_at, duration_seconds, created_at)
    select 'booking_confirmation', 'en', 'alloy', business_id, id,
           (case when k = 4 then 'no-answer' when k = 5 then 'busy' else 'completed' end)::call_status,
           (array['confirmed', 'cancelled', 'reschedule requested: later', 'voicemail', null, null, null])[k + 1],
           case when k = 3 then 'machine_end_beep' when k in (4, 5) then null else 'human' end,
           300, created_at + interval '1 minute',
           case when k in (4, 5) then null when k = 3 then 25 else 20 + floor(random() * 160)::int end,
           created_at
    from (select b.*, floor(random() * 7)::int as k from bookings b where b.business_id = ${target.id}) picked`);
  // Each call placed in the plan's period was admitted against it (plan_calls), as admitConfirmationCall does.
  await db.execute(sql`
    insert into plan_calls (call_id, business_id, number, metered, created_at)
    select id, business_id, row_number() over (order by started_at), true, started_at
    from calls where business_id = ${target.id} and started_at >= ${PLAN_PERIOD_START.toISOString()}::timestamptz`);
  // What autovacuum does on a server: statistics for the planner, a visibility map for the index.
  await database.executeSql("vacuum analyze bookings");
  await database.executeSql("vacuum analyze calls");
  await database.executeSql("vacuum analyze plan_calls");
}

function stats(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return { median: at(0.5), p95: at(0.95) };
}

async function pageQueries(target: { id: number }, days: number) {
  const figures = await analyticsFigures(db, { id: target.id, timeZone: TIME_ZONE }, days);
  await countPlanCallsSince(db, target.id, PLAN_PERIOD_START);
  return figures;
}

async function measure(label: string, target: { id: number }) {
  let failed = false;
  for (const days of PERIODS) {
    for (let i = 0; i < 3; i++) await pageQueries(target, days);
    const times: number[] = [];
    let made = 0;
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      const figures = await pageQueries(target, days);
      times.push(performance.now() - started);
      made = Object.values(figures.bookings.byStatus).reduce((a, b) => a + b, 0);
    }
    const { median, p95 } = stats(times);
    const ok = median < TARGET_MS;
    failed ||= !ok;
    console.log(
      `${label.padEnd(7)} ${String(days).padStart(2)} days: ${String(made).padStart(6)} bookings in the period   median ${median.toFixed(1).padStart(5)} ms   p95 ${p95.toFixed(1).padStart(5)} ms   ${ok ? "ok" : "FAIL"}`,
    );
  }
  return failed;
}

console.log(
  `analytics: ${BOOKINGS.toLocaleString("en")} bookings and calls for one business, ${server ? "PostgreSQL" : "PGlite (in memory)"}, ${os.cpus().length} CPUs, Node ${process.version}`,
);
const seedStarted = performance.now();
const spread = await business("Spread Salon");
const recent = await business("Recent Salon");
const neighbour = await business("Neighbour Salon");
await seed(spread, BOOKINGS, 730);
await seed(recent, BOOKINGS, 90);
await seed(neighbour, Math.round(BOOKINGS / 10), 730);
console.log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s; ${RUNS} timed runs per period after 3 warm-ups`);

if (EXPLAIN) {
  const plan = (await db.execute(sql`explain analyze
    select status, sum(bookings) from booking_day_statuses where business_id = ${recent.id} and day >= current_date - 89 group by status`)) as unknown as {
    rows: Record<string, string>[];
  };
  for (const row of plan.rows) console.log(Object.values(row)[0]);
}

if (process.argv.includes("--detail")) {
  const { bookingFigures, callFigures } = await import("../models/analytics");
  const { periodWindow } = await import("../app/features/analytics/analytics.server");
  const w = periodWindow(TIME_ZONE, 90, new Date());
  for (const [label, run] of [
    ["bookings", () => bookingFigures(db, recent.id, w.from, w.to)],
    ["calls", () => callFigures(db, recent.id, w.from, w.to)],
    ["plan", () => countPlanCallsSince(db, recent.id, PLAN_PERIOD_START)],
  ] as const) {
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      await run();
      times.push(performance.now() - started);
    }
    console.log(`recent 90 days, ${label}: median ${stats(times).median.toFixed(1)} ms`);
  }
}

const failed = [await measure("spread", spread), await measure("recent", recent)].some(Boolean);
console.log(`target: median under ${TARGET_MS} ms for every period: ${failed ? "FAIL" : "ok"}`);
await database.close();
if (server) await admin(`DROP DATABASE IF EXISTS ${benchDatabase} WITH (FORCE)`);
process.exit(failed ? 1 : 0);
