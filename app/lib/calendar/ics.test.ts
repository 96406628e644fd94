import { describe, expect, it } from "vitest";
import { bookingIcs, escapeText, foldLine } from "./ics";

const octets = (text: string) => new TextEncoder().encode(text).length;

/** The unfolded content lines of a calendar file, as a reader sees them. */
const unfold = (ics: string) => ics.replace(/\r\n /g, "").split("\r\n").filter(Boolean);

describe("bookingIcs", () => {
  const event = (text: string) =>
    bookingIcs({
      uid: "booking-1@sakina",
      start: new Date("2026-03-01T10:00:00Z"),
      end: new Date("2026-03-01T10:30:00Z"),
      summary: text,
      description: text,
      location: text,
    });

  it("keeps a customer's CR/LF inside its own line, so it cannot add a property", () => {
    const attack = "Haircut\r\nATTENDEE:mailto:evil@example.com\rEND:VEVENT\nBEGIN:VEVENT";
    const lines = unfold(event(attack));
    expect(lines.filter((line) => line.startsWith("ATTENDEE"))).toEqual([]);
    expect(lines.filter((line) => line === "BEGIN:VEVENT")).toHaveLength(1);
    expect(lines.filter((line) => line === "END:VEVENT")).toHaveLength(1);
    expect(lines).toContain("SUMMARY:Haircut\\nATTENDEE:mailto:evil@example.com\\nEND:VEVENT\\nBEGIN:VEVENT");
    // No bare CR or LF anywhere: every line ends with CRLF.
    expect(event(attack).replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
  });

  it("escapes backslash, semicolon and comma, and drops other control characters", () => {
    expect(escapeText("a\\b;c,d\u0000\u0007e\tf")).toBe("a\\\\b\\;c\\,de\tf");
  });

  it("folds lines at 75 octets without splitting a character", () => {
    const text = "مرحبا 😀 ".repeat(30);
    const ics = event(text);
    for (const line of ics.split("\r\n")) expect(octets(line)).toBeLessThanOrEqual(75);
    expect(unfold(ics)).toContain(`SUMMARY:${escapeText(text)}`);
    expect(ics).not.toContain("\uFFFD");
  });

  it("leaves a short line alone", () => {
    expect(foldLine("SUMMARY:Haircut")).toBe("SUMMARY:Haircut");
    expect(foldLine("x".repeat(76))).toBe(`${"x".repeat(75)}\r\n x`);
  });
});
