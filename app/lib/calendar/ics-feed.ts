import { escapeText, foldLine } from "./ics";

/** One event of a subscribed calendar (RFC 5545), its times in UTC (no VTIMEZONE needed). */
export interface FeedEvent {
  /** The same for the event's whole life, so a calendar updates the event it holds. */
  uid: string;
  /** Grows on every change that the calendar must apply (RFC 5545 3.8.7.4). */
  sequence: number;
  status: "TENTATIVE" | "CONFIRMED" | "CANCELLED";
  start: Date;
  end: Date;
  created: Date;
  lastModified: Date;
  summary: string;
  description: string;
  url?: string;
}

/** How often a calendar app should fetch the feed again (RFC 7986 REFRESH-INTERVAL; Outlook reads X-PUBLISHED-TTL). */
const REFRESH = "PT15M";

const utc = (date: Date) =>
  date
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");

/**
 * A whole calendar for subscription (webcal): CRLF line endings, lines folded at 75 octets, TEXT
 * values escaped. DTSTAMP is the event's last change, as RFC 5545 3.8.7.2 asks of a published
 * calendar, so the same bookings give the same bytes (and the same ETag).
 */
export function calendarFeedIcs(input: { name: string; description: string; events: FeedEvent[] }) {
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Sakina//Owner calendar feed//EN",
    "CALSCALE:GREGORIAN",
    "METHOD:PUBLISH",
    `NAME:${escapeText(input.name)}`,
    `X-WR-CALNAME:${escapeText(input.name)}`,
    `DESCRIPTION:${escapeText(input.description)}`,
    `X-WR-CALDESC:${escapeText(input.description)}`,
    `REFRESH-INTERVAL;VALUE=DURATION:${REFRESH}`,
    `X-PUBLISHED-TTL:${REFRESH}`,
  ];
  for (const event of input.events) lines.push(...eventLines(event));
  lines.push("END:VCALENDAR");
  return lines.map(foldLine).join("\r\n") + "\r\n";
}

/** One VEVENT's lines, unfolded. */
function eventLines(event: FeedEvent) {
  return [
    "BEGIN:VEVENT",
    `UID:${escapeText(event.uid)}`,
    `SEQUENCE:${event.sequence}`,
    `DTSTAMP:${utc(event.lastModified)}`,
    `CREATED:${utc(event.created)}`,
    `LAST-MODIFIED:${utc(event.lastModified)}`,
    `DTSTART:${utc(event.start)}`,
    `DTEND:${utc(event.end)}`,
    `STATUS:${event.status}`,
    `SUMMARY:${escapeText(event.summary)}`,
    `DESCRIPTION:${escapeText(event.description)}`,
    // A URI value, not TEXT: built by the server from the public origin and an id, never from input.
    ...(event.url ? [`URL:${event.url}`] : []),
    "END:VEVENT",
  ];
}

/**
 * One event as a CalDAV calendar object resource (RFC 4791 4.1): one UID, no METHOD (a resource on
 * a calendar server is not a scheduling message), the same event text as the feed's.
 */
export function calendarObjectIcs(event: FeedEvent) {
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Sakina//Owner calendar sync//EN",
    "CALSCALE:GREGORIAN",
    ...eventLines(event),
    "END:VCALENDAR",
  ];
  return lines.map(foldLine).join("\r\n") + "\r\n";
}
