// Slot computation: which start times a customer can book.
//
// Pure and synchronous: no I/O, no wall clock (`now` is always passed in). Time zones come from
// `Intl` only. The rule (the same as Cal.com's `getSlots` in this setting, see
// shared/bench-cases/slots/README.md):
//
//   1. Opening intervals: for each local date the window touches, that weekday's intervals,
//      converted from local wall time to instants, clipped to the window [now, now + windowDays).
//      Days off give none. Touching or overlapping intervals are merged (set union), also across
//      midnight.
//   2. Free intervals: opening intervals minus the busy intervals (half-open [start, end)).
//   3. In each free interval [a, b): with L = service length and g = the largest of
//      60, 30, 20, 15, 10, 5 dividing L, the first start is max(a, now + notice) rounded UP to a
//      multiple of g minutes past the local hour; then every L minutes while [s, s + L) fits in
//      [a, b). (The README says "seconds dropped, then rounded up"; we never let that dropping
//      move a start before a or before now + notice, so 08:07:30 with g = 15 gives 08:15, and an
//      on-grid 08:15:30 gives 08:30, never 08:15.)
//
// Performance: per call, one Intl.DateTimeFormat#format per local date (the zone offset sampled
// at each local midnight; a day whose neighbouring samples all agree has no transition, so its
// wall times convert with one subtraction), a single linear pass over the bookings to keep those
// in the window, a sort of those few, and a merge sweep. Formatters are cached per zone.

import type { OpeningInterval, WeeklySchedule } from "#models/opening-hours";
import { dayOfLocalDate, instantOfWall, localDateOfDay, utcToZoned, wallTime, weekdayOf, zoneOffsetAt } from "~/lib/zoned-time";

export type { OpeningInterval, WeeklySchedule };
export interface BusyInterval {
  start: number;
  end: number;
} // epoch ms, half-open [start, end)
export interface SlotRules {
  timeZone: string; // IANA, e.g. "America/New_York"
  weekly: WeeklySchedule;
  daysOff: ReadonlySet<string> | readonly string[]; // local dates "YYYY-MM-DD" when closed
  serviceMinutes: number; // 5..720
  minimumNoticeMinutes: number; // >= 0
  windowDays: number; // 30 in the product
}

const MINUTE = 60_000;
const DAY = 86_400_000;
const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

// ---------------------------------------------------------------------------------------------
// The window

function windowEndOf(rules: Pick<SlotRules, "windowDays">, now: number): number {
  if (!Number.isFinite(rules.windowDays) || rules.windowDays < 0) {
    throw new RangeError(`Invalid windowDays: ${rules.windowDays}`);
  }
  return now + rules.windowDays * DAY;
}

/** First and last local day numbers the window [now, end) touches, or null if empty. */
function windowDayRange(timeZone: string, now: number, end: number): [number, number] | null {
  if (!(end > now)) return null;
  const first = Math.floor(wallTime(now, timeZone) / DAY);
  const last = Math.floor(wallTime(end - 1, timeZone) / DAY);
  return [first, last];
}

/** The local dates "YYYY-MM-DD" (business zone) that the window [now, now+windowDays days) touches, first to last. */
export function windowLocalDates(rules: Pick<SlotRules, "timeZone" | "windowDays">, now: number): string[] {
  const range = windowDayRange(rules.timeZone, now, windowEndOf(rules, now));
  if (!range) return [];
  const out: string[] = [];
  for (let d = range[0]; d <= range[1]; d++) out.push(localDateOfDay(d));
  return out;
}

// ---------------------------------------------------------------------------------------------
// The engine

/** Opening intervals over the window, merged, ascending. `off` = the zone offset valid over the
 * whole interval, or NaN when a transition may fall inside it (then it is looked up per gap). */
interface Opening {
  start: number[];
  end: number[];
  off: number[];
}

function isDayOff(daysOff: SlotRules["daysOff"]): (date: string) => boolean {
  if (Array.isArray(daysOff)) {
    if (daysOff.length === 0) return () => false;
    const set = new Set<string>(daysOff);
    return (d) => set.has(d);
  }
  const set = daysOff as ReadonlySet<string>;
  return (d) => set.size > 0 && set.has(d);
}

function buildOpening(rules: SlotRules, now: number, end: number): Opening {
  const out: Opening = { start: [], end: [], off: [] };
  const range = windowDayRange(rules.timeZone, now, end);
  if (!range) return out;
  const [first, last] = range;
  const tz = rules.timeZone;
  const dayOff = isDayOff(rules.daysOff);

  // Offset sampled at each local-midnight-as-UTC value, first-1 .. last+2, computed lazily.
  const samples: number[] = new Array<number>(last - first + 4).fill(NaN);
  const sample = (day: number): number => {
    const i = day - first + 1;
    let v = samples[i]!;
    if (Number.isNaN(v)) {
      v = zoneOffsetAt(day * DAY, tz);
      samples[i] = v;
    }
    return v;
  };

  for (let day = first; day <= last; day++) {
    const intervals = rules.weekly[weekdayOf(day)] ?? [];
    if (intervals.length === 0) continue;
    if (dayOff(localDateOfDay(day))) continue;

    // Wall times of this day map to instants in [W0 - 14h, W0 + 38h], inside the samples'
    // span [W0 - 1 day, W0 + 2 days]; four equal samples mean no transition there.
    const o0 = sample(day - 1);
    const o3 = sample(day + 2);
    const stable = o0 === sample(day) && o0 === sample(day + 1) && o0 === o3;
    const w0 = day * DAY;

    let list = intervals;
    for (let i = 1; i < list.length; i++) {
      if (list[i]!.startMinute < list[i - 1]!.startMinute) {
        list = [...intervals].sort((x, y) => x.startMinute - y.startMinute);
        break;
      }
    }

    for (const iv of list) {
      const ws = w0 + iv.startMinute * MINUTE;
      const we = w0 + iv.endMinute * MINUTE;
      let s = stable ? ws - o0 : instantOfWall(ws, tz);
      let e = stable ? we - o0 : instantOfWall(we, tz);
      if (s < now) s = now;
      if (e > end) e = end;
      if (!(e > s)) continue;
      const off = stable ? o0 : NaN;
      const n = out.start.length;
      if (n > 0 && s <= out.end[n - 1]!) {
        if (e > out.end[n - 1]!) out.end[n - 1] = e;
        if (out.off[n - 1] !== off) out.off[n - 1] = NaN;
      } else {
        out.start.push(s);
        out.end.push(e);
        out.off.push(off);
      }
    }
  }
  return out;
}

/** Largest of 60, 30, 20, 15, 10, 5 dividing L (1 if none: L is not a multiple of 5). */
function gridMinutes(L: number): number {
  for (const g of [60, 30, 20, 15, 10, 5]) if (L % g === 0) return g;
  return 1;
}

function compute(rules: SlotRules, busy: readonly BusyInterval[], now: number): number[] {
  const L = rules.serviceMinutes;
  if (!Number.isInteger(L) || L <= 0) throw new RangeError(`Invalid serviceMinutes: ${L}`);
  const notice = rules.minimumNoticeMinutes;
  if (!Number.isFinite(notice) || notice < 0) throw new RangeError(`Invalid minimumNoticeMinutes: ${notice}`);
  if (!Number.isFinite(now)) throw new RangeError(`Invalid now: ${now}`);

  const end = windowEndOf(rules, now);
  const minStart = now + notice * MINUTE;
  const slots: number[] = [];
  if (minStart + L * MINUTE > end) return slots;

  const open = buildOpening(rules, now, end);
  const nOpen = open.start.length;
  if (nOpen === 0) return slots;
  const lo = open.start[0]!;
  const hi = open.end[nOpen - 1]!;

  // Keep only bookings overlapping the opening span (one linear pass; history is skipped here).
  let kept: BusyInterval[] = [];
  let sorted = true;
  let prevStart = -Infinity;
  for (let i = 0; i < busy.length; i++) {
    const b = busy[i]!;
    if (b.end > lo && b.start < hi && b.end > b.start) {
      if (b.start < prevStart) sorted = false;
      prevStart = b.start;
      kept.push(b);
    }
  }
  if (!sorted) kept = kept.sort((x, y) => x.start - y.start);

  // Merge overlapping/touching bookings into disjoint, ascending intervals.
  const bStart: number[] = [];
  const bEnd: number[] = [];
  for (const b of kept) {
    const n = bStart.length;
    if (n > 0 && b.start <= bEnd[n - 1]!) {
      if (b.end > bEnd[n - 1]!) bEnd[n - 1] = b.end;
    } else {
      bStart.push(b.start);
      bEnd.push(b.end);
    }
  }
  const nBusy = bStart.length;

  const Lms = L * MINUTE;
  const gms = gridMinutes(L) * MINUTE;
  const tz = rules.timeZone;
  const mod = (x: number, m: number) => ((x % m) + m) % m;
  /** The first instant >= x whose local time (at offset o) is a multiple of g minutes past the hour. */
  const roundUp = (x: number, o: number) => {
    const r = mod(x + o, gms);
    return r === 0 ? x : x + gms - r;
  };

  const emit = (a: number, b: number, off: number) => {
    const lower = a > minStart ? a : minStart;
    if (lower + Lms > b) return;
    let s: number;
    if (!Number.isNaN(off)) {
      s = roundUp(lower, off);
    } else {
      // A transition may fall inside this gap. Round with the offset at `lower`; if the offset
      // at the result differs (e.g. Lord Howe's 30-minute DST), also try rounding with that one,
      // and take the earliest candidate that really is on the local grid; if neither is (the
      // grid time fell into the gap), walk on from the first candidate with its own offset.
      const o1 = zoneOffsetAt(lower, tz);
      s = roundUp(lower, o1);
      const o2 = zoneOffsetAt(s, tz);
      if (o2 !== o1) {
        const onGrid = (x: number) => x >= lower && mod(x + zoneOffsetAt(x, tz), gms) === 0;
        const s2 = roundUp(lower, o2);
        const ok1 = onGrid(s);
        const ok2 = onGrid(s2);
        if (ok2 && (!ok1 || s2 < s)) s = s2;
        else if (!ok1) {
          for (let i = 0; i < 4 && !onGrid(s); i++) s = roundUp(s, zoneOffsetAt(s, tz));
        }
      }
    }
    for (; s + Lms <= b; s += Lms) slots.push(s);
  };

  let j = 0;
  for (let i = 0; i < nOpen; i++) {
    const a = open.start[i]!;
    const b = open.end[i]!;
    const off = open.off[i]!;
    if (b <= minStart) continue;
    while (j < nBusy && bEnd[j]! <= a) j++;
    let cur = a;
    let k = j;
    while (k < nBusy && bStart[k]! < b) {
      if (bStart[k]! > cur) emit(cur, bStart[k]!, off);
      if (bEnd[k]! > cur) cur = bEnd[k]!;
      if (cur >= b) break;
      k++;
    }
    if (cur < b) emit(cur, b, off);
    j = k;
  }
  return slots;
}

/** All bookable start instants (epoch ms, ascending) in [now + notice, now + windowDays days), following the bench README's slot rule exactly (each free gap starts its own grid; g = largest of 60,30,20,15,10,5 dividing L; first start rounded UP to a multiple of g minutes past the local hour, seconds dropped; then every L minutes while [s, s+L) fits in the free gap). Opening intervals: each local date that intersects the window gets that weekday's intervals converted local wall time -> instants (clipped to the window); days off give none. Busy intervals (bookings) are subtracted; they may be unsorted and may include the far past or far future (skip what is outside the window efficiently). */
export function computeSlots(rules: SlotRules, busy: readonly BusyInterval[], now: number): number[] {
  return compute(rules, busy, now);
}

/** Index of the first element >= x in an ascending array. */
function lowerBound(arr: readonly number[], x: number): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The slot list for one local date as the booking page shows it: every start time on that day's opening grid (the same rule applied to the opening intervals WITHOUT bookings, clipped by now+notice and the window) plus any free start not on that grid, each with available = whether it is in computeSlots' result; times "HH:MM" in the business's zone, ascending, no duplicates. A date outside the window or a day off gives []. `zone`: the date and the times are a viewer's in that zone instead (the slots are still the business's; a business's day off then shows as no slots, not as no day). */
export function slotsForLocalDate(
  rules: SlotRules,
  busy: readonly BusyInterval[],
  now: number,
  localDate: string,
  zone: string = rules.timeZone,
): { time: string; available: boolean; start: number }[] {
  const day = dayOfLocalDate(localDate);
  const range = windowDayRange(zone, now, windowEndOf(rules, now));
  if (!range || day < range[0] || day > range[1]) return [];
  if (zone === rules.timeZone && isDayOff(rules.daysOff)(localDate)) return [];

  // The day's instants: [its local midnight, the next local midnight), in the zone of the list.
  const from = instantOfWall(day * DAY, zone);
  const to = instantOfWall((day + 1) * DAY, zone);

  // Whole-window computations (a free gap may run across midnight, so its grid can start on an
  // earlier date), then the date's part of each.
  const free = compute(rules, busy, now);
  const grid = compute(rules, [], now);
  const f0 = lowerBound(free, from);
  const f1 = lowerBound(free, to);
  const g0 = lowerBound(grid, from);
  const g1 = lowerBound(grid, to);

  const out: { time: string; available: boolean; start: number }[] = [];
  const byTime = new Map<string, number>(); // time -> index in out
  const add = (start: number, available: boolean) => {
    const z = utcToZoned(start, zone);
    const time = `${pad2(Math.floor(z.minuteOfDay / 60))}:${pad2(z.minuteOfDay % 60)}`;
    const seen = byTime.get(time);
    if (seen === undefined) {
      byTime.set(time, out.length);
      out.push({ time, available, start });
    } else if (available && !out[seen]!.available) {
      // The repeated hour of a fall-back day: two instants share a label. Keep one entry per
      // label, preferring a bookable one.
      out[seen] = { time, available, start };
    }
  };

  // Merge the two ascending lists (free starts are a subset of "all starts shown").
  let i = f0;
  let k = g0;
  while (i < f1 || k < g1) {
    const fv = i < f1 ? free[i]! : Infinity;
    const gv = k < g1 ? grid[k]! : Infinity;
    if (fv <= gv) {
      add(fv, true);
      i++;
      if (fv === gv) k++;
    } else {
      add(gv, false);
      k++;
    }
  }
  // Labels follow the instants except in the repeated hour of a fall-back day; order by label.
  if (out.some((x, n) => n > 0 && x.time < out[n - 1]!.time)) out.sort((x, y) => (x.time < y.time ? -1 : 1));
  return out;
}
