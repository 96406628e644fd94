// Next-call benchmark: nextCallAt for 100,000 subscribers, as the job runner stores it after each
// call, checked against a brute-force reference on a sample.
//
//   npx tsx bench/next-due.bench.ts [--now=2026-03-07T18:00:00Z] [--seed=20260307] [--count=100000]
//
// Subscribers come from a seeded generator (mulberry32), so a run is reproducible: 18 zones (with
// and without DST, half-hour and 45-minute offsets, both hemispheres), the four schedule types,
// call times 08:00-21:00, anchors over the 60 days before `now`. The default `now` is the day
// before the US spring forward, so the next 24 hours cross a transition.
//
// Prints the cold first pass (formatters created, offset caches filled, code not yet optimised),
// then the median of timed passes after a warm-up pass, and how many calls fall due in the next
// hour and the next 24 hours. Exit code 1 (and FAIL) if any sampled result differs from the
// reference or the warm pass misses the one-second target.
import os from "node:os";
import { type CallSchedule, type ScheduleType, nextCallAt, SCHEDULE_TYPES } from "../app/features/subscriptions/schedule";

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const NOW = Date.parse(arg("now") ?? "2026-03-07T18:00:00Z");
const SEED = Number(arg("seed") ?? 20260307);
const COUNT = Number(arg("count") ?? 100_000);
const SAMPLE = 1_000;
const TIMED_PASSES = 5;
const TARGET_MS = 1_000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const ZONES = [
  "UTC",
  "America/New_York",
  "America/Chicago",
  "America/Denver",
  "America/Los_Angeles",
  "Europe/London",
  "Europe/Paris",
  "Asia/Dubai",
  "Asia/Riyadh",
  "Asia/Tokyo",
  "Australia/Sydney",
  "Asia/Kolkata",
  "America/Sao_Paulo",
  "Pacific/Auckland",
  // Offsets that are not whole hours, a 30-minute DST, and a 45-minute zone with DST.
  "Asia/Kathmandu",
  "America/St_Johns",
  "Australia/Lord_Howe",
  "Pacific/Chatham",
];

function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = mulberry32(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const pad = (n: number) => String(n).padStart(2, "0");

// ---- subscribers (not timed) ----
const subscribers: CallSchedule[] = [];
for (let i = 0; i < COUNT; i++) {
  const minute = 8 * 60 + Math.floor(random() * (13 * 60 + 1)); // 08:00 .. 21:00
  subscribers.push({
    type: pick(SCHEDULE_TYPES),
    time: `${pad(Math.floor(minute / 60))}:${pad(minute % 60)}`,
    timeZone: pick(ZONES),
    anchor: new Date(NOW - Math.floor(random() * 60 * DAY)),
  });
}

// ---- timing ----
const now = new Date(NOW);
const results = new Float64Array(COUNT);
function pass(): number {
  const start = performance.now();
  for (let i = 0; i < COUNT; i++) results[i] = nextCallAt(subscribers[i]!, now).getTime();
  return performance.now() - start;
}
const coldMs = pass();
pass(); // warm-up, not counted
const timed: number[] = [];
for (let i = 0; i < TIMED_PASSES; i++) timed.push(pass());
timed.sort((a, b) => a - b);
const warmMs = timed[Math.floor(TIMED_PASSES / 2)]!;

let dueHour = 0;
let dueDay = 0;
let notAfter = 0;
for (const t of results) {
  if (!(t > NOW)) notAfter++;
  if (t <= NOW + HOUR) dueHour++;
  if (t <= NOW + DAY) dueDay++;
}

// ---- reference (slow, independent): Intl parts for every date, and a wall time's instant found by
// trying every whole-minute UTC offset from -14:00 to +14:00 ----
const refFormatters = new Map<string, Intl.DateTimeFormat>();
function refFormatter(timeZone: string) {
  let f = refFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-CA", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
    });
    refFormatters.set(timeZone, f);
  }
  return f;
}
/** "YYYY-MM-DD HH:MM" local. */
function refWall(ms: number, timeZone: string): string {
  return refFormatter(timeZone).format(ms).replace(", ", " "); // en-CA: "2026-03-08, 03:30"
}
/** Every instant (whole minute) whose local wall time is `wall`. */
function refInstants(wallMs: number, timeZone: string): number[] {
  const wall = new Date(wallMs).toISOString().slice(0, 16).replace("T", " ");
  const found: number[] = [];
  for (let offset = -14 * 60; offset <= 14 * 60; offset++) {
    const t = wallMs - offset * MINUTE;
    if (refWall(t, timeZone) === wall) found.push(t);
  }
  return found;
}
function refWallToInstant(wallMs: number, timeZone: string): number {
  const found = refInstants(wallMs, timeZone);
  if (found.length > 0) return Math.min(...found); // overlap: the earlier
  // Gap: the first wall time after it that exists marks the transition; the offset in force just
  // before the transition carries this wall time forward by the gap's length.
  for (let k = 1; k <= 24 * 60; k++) {
    const next = refInstants(wallMs + k * MINUTE, timeZone);
    if (next.length > 0) {
      const transition = Math.min(...next);
      const before = transition - MINUTE;
      const offsetBefore = Date.parse(refWall(before, timeZone).replace(" ", "T") + "Z") - before;
      return wallMs - offsetBefore;
    }
  }
  throw new Error("no wall time within a day exists");
}
function refNextCallAt(s: CallSchedule, after: number): number {
  const anchorMs = s.anchor.getTime();
  const threshold = Math.max(anchorMs, after);
  const dayOf = (ms: number) => Date.parse(refWall(ms, s.timeZone).slice(0, 10) + "T00:00Z") / DAY;
  const anchorDay = dayOf(anchorMs);
  const anchorDate = new Date(anchorDay * DAY);
  const [hh, mm] = s.time.split(":").map(Number);
  const isCallDay = (day: number, type: ScheduleType): boolean => {
    const since = day - anchorDay;
    if (type === "every_two_days") return since % 2 === 0;
    if (type === "weekly") return since % 7 === 0;
    if (type === "bi_weekly") return since % 7 === 0 || since % 7 === 3;
    const date = new Date(day * DAY);
    const lastOfMonth = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
    return date.getUTCDate() === Math.min(anchorDate.getUTCDate(), lastOfMonth);
  };
  for (let day = Math.max(anchorDay, dayOf(threshold) - 3); ; day++) {
    if (!isCallDay(day, s.type)) continue;
    const t = refWallToInstant(day * DAY + (hh! * 60 + mm!) * MINUTE, s.timeZone);
    if (t > threshold) return t;
  }
}

// A sample at `now`, and a sample at a random `after` in the following year (crossing every
// transition of 2026), each against the reference.
const failures: string[] = [];
const refStart = performance.now();
for (let i = 0; i < SAMPLE; i++) {
  const j = Math.floor(random() * COUNT);
  const s = subscribers[j]!;
  const later = NOW + Math.floor(random() * 365 * DAY);
  for (const [after, got] of [
    [NOW, results[j]!],
    [later, nextCallAt(s, new Date(later)).getTime()],
  ] as const) {
    const want = refNextCallAt(s, after);
    if (got !== want) {
      failures.push(
        `${s.type} ${s.time} ${s.timeZone} anchor ${s.anchor.toISOString()} after ${new Date(after).toISOString()}: ` +
          `${new Date(got).toISOString()}, reference ${new Date(want).toISOString()}`,
      );
    }
  }
}
// Times outside quiet hours never reach the job runner, but nextCallAt takes them, and they are
// the only ones that fall in a DST gap or overlap: every transition of the following year in every
// zone, found by scanning the reference hour by hour, with calls every 10 minutes from 00:00 to
// 04:50 local on the transition's local date.
let transitionChecks = 0;
for (const timeZone of ZONES) {
  const offsetAt = (ms: number) => Date.parse(refWall(ms, timeZone).replace(" ", "T") + "Z") - Math.floor(ms / MINUTE) * MINUTE;
  for (let t = NOW; t < NOW + 365 * DAY; t += HOUR) {
    if (offsetAt(t) === offsetAt(t + HOUR)) continue;
    const anchor = new Date(t - 2 * DAY); // its local date is the transition's less two: a call day
    for (let minute = 0; minute < 5 * 60; minute += 10) {
      const s: CallSchedule = { type: "every_two_days", time: `${pad(Math.floor(minute / 60))}:${pad(minute % 60)}`, timeZone, anchor };
      const after = t - DAY;
      const got = nextCallAt(s, new Date(after)).getTime();
      const want = refNextCallAt(s, after);
      transitionChecks++;
      if (got !== want) {
        failures.push(
          `${s.time} ${timeZone} transition near ${new Date(t).toISOString()}: ${new Date(got).toISOString()}, reference ${new Date(want).toISOString()}`,
        );
      }
    }
  }
}
const refMs = performance.now() - refStart;

const cpu = os.cpus()[0]?.model ?? "unknown CPU";
console.log(`next-due: ${COUNT.toLocaleString("en-US")} subscribers, ${ZONES.length} zones, seed ${SEED}, now ${now.toISOString()}`);
console.log(`node ${process.version}, ${os.cpus().length} × ${cpu}`);
console.log(`cold first pass:   ${coldMs.toFixed(1)} ms (${((coldMs * 1000) / COUNT).toFixed(2)} µs per subscriber)`);
console.log(
  `warm (median of ${TIMED_PASSES}): ${warmMs.toFixed(1)} ms (${((warmMs * 1000) / COUNT).toFixed(2)} µs per subscriber; ` +
    `passes ${timed.map((t) => t.toFixed(1)).join(", ")} ms)`,
);
console.log(`due within 1 hour: ${dueHour}, within 24 hours: ${dueDay}`);
console.log(
  `reference check: ${2 * SAMPLE} results (${SAMPLE} at now, ${SAMPLE} at a random later time) and ${transitionChecks} ` +
    `wall times 00:00-04:50 on DST transition dates, in ${(refMs / 1000).toFixed(1)} s`,
);

let ok = true;
if (notAfter > 0) {
  console.log(`FAIL: ${notAfter} results are not after now`);
  ok = false;
}
if (failures.length > 0) {
  console.log(`FAIL: ${failures.length} results differ from the reference, e.g.\n  ${failures.slice(0, 10).join("\n  ")}`);
  ok = false;
} else {
  console.log("reference check: ok");
}
if (warmMs >= TARGET_MS) {
  console.log(`FAIL: warm pass ${warmMs.toFixed(1)} ms, target under ${TARGET_MS} ms`);
  ok = false;
} else {
  console.log(`target under ${TARGET_MS} ms: ok`);
}
if (!ok) process.exitCode = 1;
