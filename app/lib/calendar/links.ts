/**
 * "Add to calendar" links for one appointment: Google Calendar's and Outlook's own compose pages,
 * filled in (what Calendly and Cal.com offer beside the .ics file). Nothing private goes in them
 * but what the calendar keeps anyway: the title, the time, the place and the manage link.
 */
export interface CalendarEvent {
  title: string;
  start: Date;
  end: Date;
  details: string;
  location?: string | null;
}

const basic = (date: Date) =>
  date
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");

export function googleCalendarLink(event: CalendarEvent) {
  const params = new URLSearchParams({
    action: "TEMPLATE",
    text: event.title,
    dates: `${basic(event.start)}/${basic(event.end)}`,
    details: event.details,
  });
  if (event.location) params.set("location", event.location);
  return `https://calendar.google.com/calendar/render?${params}`;
}

export function outlookCalendarLink(event: CalendarEvent) {
  const params = new URLSearchParams({
    path: "/calendar/action/compose",
    rru: "addevent",
    subject: event.title,
    startdt: event.start.toISOString(),
    enddt: event.end.toISOString(),
    body: event.details,
  });
  if (event.location) params.set("location", event.location);
  return `https://outlook.live.com/calendar/0/deeplink/compose?${params}`;
}
