import ical, { type VEvent } from "node-ical";
import { describe, expect, it } from "vitest";
import { calendarFeedIcs, type FeedEvent } from "./ics-feed";

const event = (over: Partial<FeedEvent>): FeedEvent => ({
  uid: "booking-7@sakina.app",
  sequence: 3,
  status: "CONFIRMED",
  start: new Date("2026-03-01T10:00:00Z"),
  end: new Date("2026-03-01T10:30:00Z"),
  created: new Date("2026-02-01T09:00:00Z"),
  lastModified: new Date("2026-02-02T09:00:00Z"),
  summary: "Layla · Haircut",
  description: "Confirmed",
  ...over,
});

const text = (value: unknown) => (typeof value === "string" ? value : (value as { val?: string }).val);

describe("calendarFeedIcs", () => {
  it("escapes commas, semicolons, backslashes and line breaks, folds long lines, and parses back as written", () => {
    const awkward = "Cut, wash; dry \\ style\nthen ☕ — ".repeat(4) + "ليلى";
    const ics = calendarFeedIcs({
      name: "Salon, Spa; & co",
      description: "All bookings",
      events: [event({ summary: awkward, description: awkward })],
    });
    expect(ics.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
    for (const line of ics.split("\r\n")) expect(new TextEncoder().encode(line).length).toBeLessThanOrEqual(75);
    expect(ics).toContain("Cut\\, wash\\; dry \\\\ style\\nthen");
    const parsed = Object.values(ical.sync.parseICS(ics)).filter((c): c is VEvent => c?.type === "VEVENT");
    expect(parsed).toHaveLength(1);
    expect(text(parsed[0]!.summary)).toBe(awkward);
    expect(text(parsed[0]!.description)).toBe(awkward);
    expect(parsed[0]!.uid).toBe("booking-7@sakina.app");
    expect(Number(parsed[0]!.sequence)).toBe(3);
    expect(new Date(parsed[0]!.start).toISOString()).toBe("2026-03-01T10:00:00.000Z");
    expect(new Date(parsed[0]!.dtstamp).toISOString()).toBe("2026-02-02T09:00:00.000Z");
  });

  it("gives the same bytes for the same bookings, and an empty calendar when there are none", () => {
    const input = {
      name: "Salon",
      description: "All bookings",
      events: [event({}), event({ uid: "booking-8@sakina.app", status: "CANCELLED" })],
    };
    expect(calendarFeedIcs(input)).toBe(calendarFeedIcs(input));
    expect(calendarFeedIcs(input)).toContain("STATUS:CANCELLED\r\n");
    const empty = calendarFeedIcs({ ...input, events: [] });
    expect(empty).toMatch(/^BEGIN:VCALENDAR\r\n[\s\S]*END:VCALENDAR\r\n$/);
    expect(empty).not.toContain("BEGIN:VEVENT");
  });
});
