/** A one-event iCalendar file (RFC 5545) for the booking e-mail. */
/**
 * The calendar event's UID of a booking: the same in every file Sakina sends for it (the e-mails,
 * the done page's "Add to calendar", a move), so calendars update the one event they have.
 */
export function bookingEventUid(bookingId: number) {
  return `booking-${bookingId}@sakina.app`;
}

export function bookingIcs(input: {
  uid: string;
  start: Date;
  end: Date;
  summary: string;
  description: string;
  location?: string | null;
  url?: string;
  /**
   * The event's SEQUENCE (RFC 5545 3.8.7.4): the booking's calendar sequence, which grows with
   * every change of its time or status, so a calendar replaces the copy it holds. 0 when new.
   */
  sequence?: number;
  /** A cancellation: METHOD:CANCEL with STATUS:CANCELLED, which removes the event (RFC 5546 3.2.5). */
  cancelled?: boolean;
}) {
  const stamp = (date: Date) =>
    date
      .toISOString()
      .replace(/[-:]/g, "")
      .replace(/\.\d{3}/, "");
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Sakina//Bookings//EN",
    "CALSCALE:GREGORIAN",
    input.cancelled ? "METHOD:CANCEL" : "METHOD:PUBLISH",
    "BEGIN:VEVENT",
    `UID:${escapeText(input.uid)}`,
    `SEQUENCE:${input.sequence ?? 0}`,
    `DTSTAMP:${stamp(new Date())}`,
    `DTSTART:${stamp(input.start)}`,
    `DTEND:${stamp(input.end)}`,
    `SUMMARY:${escapeText(input.summary)}`,
    `DESCRIPTION:${escapeText(input.description)}`,
    ...(input.location ? [`LOCATION:${escapeText(input.location)}`] : []),
    ...(input.url ? [`URL:${withoutControls(input.url)}`] : []),
    ...(input.cancelled ? ["STATUS:CANCELLED"] : []),
    "END:VEVENT",
    "END:VCALENDAR",
  ];
  return lines.map(foldLine).join("\r\n") + "\r\n";
}

/**
 * A TEXT value (RFC 5545, 3.3.11): backslash, semicolon and comma escaped, every line break (CRLF,
 * CR or LF) written as `\n`, other control characters dropped, so what a customer typed can never
 * start a property of its own.
 */
export function escapeText(text: string) {
  return withoutControls(
    text
      .replace(/\\/g, "\\\\")
      .replace(/;/g, "\\;")
      .replace(/,/g, "\\,")
      .replace(/\r\n|\r|\n/g, "\\n"),
  );
}

function withoutControls(text: string) {
  return [...text].filter((char) => char === "\t" || (char >= " " && char !== "\u007f")).join("");
}

const encoder = new TextEncoder();

/** Lines longer than 75 octets of UTF-8 are folded with CRLF + space, never inside a character. */
export function foldLine(line: string) {
  const parts: string[] = [];
  let current = "";
  let octets = 0;
  for (const char of line) {
    const size = encoder.encode(char).length;
    // Continuation lines begin with the folding space, which counts towards their 75.
    const room = parts.length === 0 ? 75 : 74;
    if (octets + size > room) {
      parts.push(current);
      current = "";
      octets = 0;
    }
    current += char;
    octets += size;
  }
  parts.push(current);
  return parts.join("\r\n ");
}
