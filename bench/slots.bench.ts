// Slot-computation benchmark on the shared case (shared/bench-cases/slots/README.md).
//
//   npx tsx bench/slots.bench.ts [path/to/case.json]
//
// Default case path: ../shared/bench-cases/slots/case.json relative to the repository root.
// Exit code 1 if any service's slot count differs from the README's table.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type BusyInterval, type SlotRules, type WeeklySchedule, computeSlots } from "../app/features/booking/slots";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const casePath = path.resolve(process.argv[2] ?? path.join(repoRoot, "../shared/bench-cases/slots/case.json"));

interface BenchCase {
  name: string;
  timeZone: string;
  now: string;
  window: { days: number };
  weeklyHours: Record<string, { start: string; end: string }[]>;
  services: { id: string; minutes: number }[];
  benchmark: { serviceId: string; minimumNoticeMinutes: number };
  bookings: { start: string; end: string }[];
}

// README table: count, first, last (UTC).
const EXPECTED: Record<string, [number, string, string]> = {
  s01: [368, "2025-06-02T13:15:00.000Z", "2025-07-01T20:45:00.000Z"],
  s02: [154, "2025-06-02T15:30:00.000Z", "2025-07-01T20:30:00.000Z"],
  s03: [154, "2025-06-02T15:30:00.000Z", "2025-07-01T20:30:00.000Z"],
  s04: [85, "2025-06-02T17:00:00.000Z", "2025-07-01T18:30:00.000Z"],
  s05: [49, "2025-06-02T17:00:00.000Z", "2025-07-01T18:00:00.000Z"],
  s06: [49, "2025-06-02T17:00:00.000Z", "2025-07-01T18:00:00.000Z"],
  s07: [24, "2025-06-07T14:00:00.000Z", "2025-07-01T17:00:00.000Z"],
  s08: [154, "2025-06-02T15:30:00.000Z", "2025-07-01T20:30:00.000Z"],
  s09: [85, "2025-06-02T17:00:00.000Z", "2025-07-01T18:30:00.000Z"],
  s10: [8, "2025-06-12T17:00:00.000Z", "2025-07-01T17:00:00.000Z"],
};
const S02_SHA256_PREFIX = "20a9073c6f88";
const CALCOM_MEDIAN_MS = 60;
const WARMUP = 50;
const RUNS = 500;

// ---- load and convert (not timed) ----
const c = JSON.parse(readFileSync(casePath, "utf8")) as BenchCase;
const hm = (s: string) => {
  const [h, m] = s.split(":").map(Number);
  return h! * 60 + m!;
};
const keys = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;
const weekly = Object.fromEntries(
  keys.map((k, i) => [i, (c.weeklyHours[k] ?? []).map((h) => ({ startMinute: hm(h.start), endMinute: hm(h.end) }))]),
) as unknown as WeeklySchedule;
const now = Date.parse(c.now);
const windowEnd = now + c.window.days * 86_400_000;
const allBookings: BusyInterval[] = c.bookings.map((b) => ({ start: Date.parse(b.start), end: Date.parse(b.end) }));
// What a database index on start/end would return for the window.
const windowBookings = allBookings.filter((b) => b.end > now && b.start < windowEnd);

const rulesFor = (minutes: number): SlotRules => ({
  timeZone: c.timeZone,
  weekly,
  daysOff: [],
  serviceMinutes: minutes,
  minimumNoticeMinutes: c.benchmark.minimumNoticeMinutes,
  windowDays: c.window.days,
});
const benchService = c.services.find((s) => s.id === c.benchmark.serviceId);
if (!benchService) throw new Error(`benchmark service ${c.benchmark.serviceId} not in the case`);
const benchRules = rulesFor(benchService.minutes);

// ---- timing ----
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

function timeBatch(bookings: readonly BusyInterval[]) {
  let count = 0;
  for (let i = 0; i < WARMUP; i++) count = computeSlots(benchRules, bookings, now).length;
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const slots = computeSlots(benchRules, bookings, now);
    times.push(performance.now() - t0);
    count = slots.length;
  }
  times.sort((a, b) => a - b);
  return { median: quantile(times, 0.5), p95: quantile(times, 0.95), min: times[0]!, count };
}

const fmt = (ms: number) => ms.toFixed(3).padStart(8);
let failed = false;

console.log(`case: ${c.name} (${casePath})`);
console.log(
  `node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}); ` +
    `service ${benchService.id} (${benchService.minutes} min); ${WARMUP} warm-up + ${RUNS} timed calls per batch`,
);
console.log(`bookings: all ${allBookings.length}, window-only ${windowBookings.length}\n`);

const batches = [
  { name: `all ${allBookings.length} bookings`, bookings: allBookings },
  { name: `window-only (${windowBookings.length})`, bookings: windowBookings },
];

console.log(`${"bookings in".padEnd(24)}${"median ms".padStart(10)}${"p95 ms".padStart(10)}${"min ms".padStart(10)}   slots`);
const results = batches.map((b) => ({ ...b, ...timeBatch(b.bookings) }));
for (const r of results) {
  const ok = r.count === EXPECTED[benchService.id]![0];
  if (!ok) failed = true;
  console.log(`${r.name.padEnd(24)}  ${fmt(r.median)}  ${fmt(r.p95)}  ${fmt(r.min)}   ${r.count}${ok ? "" : "  MISMATCH"}`);
}
const s02 = computeSlots(benchRules, allBookings, now).map((ms) => new Date(ms).toISOString());
const sha = createHash("sha256").update(s02.join("\n")).digest("hex");
const shaOk = sha.startsWith(S02_SHA256_PREFIX);
if (!shaOk) failed = true;
console.log(`${benchService.id} sha256 ${sha.slice(0, 12)} (expected ${S02_SHA256_PREFIX}) ${shaOk ? "ok" : "MISMATCH"}`);
const median = results[0]!.median;
console.log(
  `\nvs Cal.com (slots.ts + date-ranges.ts with dayjs, ~${CALCOM_MEDIAN_MS} ms median on this case, published figure, ` +
    `not re-run here): ${median.toFixed(3)} ms with all bookings = ~${Math.round(CALCOM_MEDIAN_MS / median)}x faster`,
);

// ---- all 10 services, once each, per batch ----
for (const b of batches) {
  console.log(`\nall services, one call each, ${b.name}:`);
  console.log(
    `${"service".padEnd(9)}${"min".padStart(4)}${"ms".padStart(9)}${"slots".padStart(7)}${"expected".padStart(10)}   first / last`,
  );
  for (const s of c.services) {
    const t0 = performance.now();
    const slots = computeSlots(rulesFor(s.minutes), b.bookings, now);
    const ms = performance.now() - t0;
    const exp = EXPECTED[s.id];
    const first = slots.length ? new Date(slots[0]!).toISOString() : "-";
    const last = slots.length ? new Date(slots[slots.length - 1]!).toISOString() : "-";
    const ok = !!exp && exp[0] === slots.length && exp[1] === first && exp[2] === last;
    if (!ok) failed = true;
    console.log(
      `${s.id.padEnd(9)}${String(s.minutes).padStart(4)}${ms.toFixed(3).padStart(9)}${String(slots.length).padStart(7)}` +
        `${String(exp?.[0] ?? "?").padStart(10)}   ${first} / ${last}${ok ? "" : "  MISMATCH"}`,
    );
  }
}

console.log(failed ? "\nFAIL: a result differs from the README's table" : "\nall counts match the README's table");
process.exit(failed ? 1 : 0);
