import ical, { type VEvent } from "node-ical";
import { outboundRequest, PrivateAddressError, type OutboundResponse } from "~/platform/security/outbound.server";

/**
 * A small CalDAV client (RFC 4791 over WebDAV, RFC 4918), enough for the owner's calendar sync:
 * find the calendar from a server URL, read busy times in a window, and write or remove one
 * event per booking with If-Match on its ETag. Basic authentication over the owner's URL (iCloud,
 * Fastmail and Nextcloud take an app password so). Every request is bounded by a timeout.
 */
export interface CalDavAccount {
  url: string;
  username: string;
  password: string;
  /** CALDAV_PRIVATE_ADDRESSES=allow: the server may reach calendars on its own network. */
  allowPrivateAddresses?: boolean;
}

export type CalDavProblem = "credentials" | "not_calendar" | "unreachable" | "private_address";

export class CalDavError extends Error {
  constructor(
    readonly problem: CalDavProblem,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** How long one request may take. */
const TIMEOUT_MS = 10_000;

async function request(
  account: Pick<CalDavAccount, "username" | "password" | "allowPrivateAddresses">,
  method: string,
  url: string,
  options: { body?: string; headers?: Record<string, string>; timeoutMs?: number } = {},
) {
  const auth = Buffer.from(`${account.username}:${account.password}`, "utf8").toString("base64");
  let response: OutboundResponse;
  try {
    // Only public addresses, each hop checked (app/platform/security/outbound.server.ts): the
    // address is the owner's to type, the request Sakina's server's to make.
    response = await outboundRequest(url, {
      method,
      headers: {
        Authorization: `Basic ${auth}`,
        ...(options.body !== undefined
          ? { "Content-Type": method === "PUT" ? "text/calendar; charset=utf-8" : "application/xml; charset=utf-8" }
          : {}),
        ...options.headers,
      },
      body: options.body,
      signal: AbortSignal.timeout(options.timeoutMs ?? TIMEOUT_MS),
      allowPrivate: account.allowPrivateAddresses === true,
    });
  } catch (error) {
    if (error instanceof PrivateAddressError) throw new CalDavError("private_address", `${method} ${safeUrl(url)}: ${error.message}`);
    throw new CalDavError("unreachable", `${method} ${safeUrl(url)}: ${(error as Error).message}`);
  }
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel();
    throw new CalDavError("credentials", `${method} ${safeUrl(url)}: ${response.status} ${response.statusText}`, response.status);
  }
  return response;
}

/** A URL for messages: never any user info it may carry. */
function safeUrl(url: string) {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.toString();
  } catch {
    return "(invalid URL)";
  }
}

// ---- XML, read loosely: any namespace prefix (d:, D:, none), as servers differ. ----

const tag = (name: string) =>
  new RegExp(`<(?:[A-Za-z][\\w.-]*:)?${name}\\b[^>]*?(?:/>|>([\\s\\S]*?)</(?:[A-Za-z][\\w.-]*:)?${name}>)`, "g");

function elements(xml: string, name: string) {
  return [...xml.matchAll(tag(name))].map((match) => match[1] ?? "");
}

function first(xml: string, name: string) {
  return elements(xml, name)[0] ?? null;
}

function decodeXml(text: string) {
  const cdata = /^\s*<!\[CDATA\[([\s\S]*)\]\]>\s*$/.exec(text);
  if (cdata) return cdata[1]!;
  return text.replace(/&(lt|gt|amp|quot|apos|#(\d+)|#x([0-9a-fA-F]+));/g, (_, name: string, dec?: string, hex?: string) => {
    if (dec) return String.fromCodePoint(Number(dec));
    if (hex) return String.fromCodePoint(parseInt(hex, 16));
    return { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" }[name]!;
  });
}

interface DavResponse {
  href: string;
  /** The props of the 200 propstat. */
  props: string;
}

function multistatus(xml: string, base: string): DavResponse[] {
  return elements(xml, "response").map((block) => {
    const href = decodeXml((first(block, "href") ?? "").trim());
    const ok = elements(block, "propstat").filter((propstat) => /\s2\d\d\s/.test(` ${first(propstat, "status") ?? ""} `));
    return { href: new URL(href, base).toString(), props: ok.map((propstat) => first(propstat, "prop") ?? "").join("") };
  });
}

const isCalendar = (props: string) => {
  const type = first(props, "resourcetype") ?? "";
  return tag("calendar").test(type.replace(/<(?:[\w.-]+:)?calendar-[\w-]+/g, ""));
};

/** A calendar that takes events: one without a component set says nothing against VEVENT. */
const takesEvents = (props: string) => {
  const set = first(props, "supported-calendar-component-set");
  return set === null || /name\s*=\s*["']VEVENT["']/i.test(set);
};

async function propfind(account: CalDavAccount, url: string, depth: "0" | "1", props: string) {
  const body = `<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop>${props}</d:prop></d:propfind>`;
  const response = await request(account, "PROPFIND", url, { body, headers: { Depth: depth } });
  const text = await response.text();
  if (response.status !== 207)
    throw new CalDavError("not_calendar", `PROPFIND ${safeUrl(url)}: ${response.status} ${response.statusText}`, response.status);
  return multistatus(text, response.url || url);
}

/**
 * The calendar collection the owner means: the URL itself when it is one; otherwise the first
 * calendar taking events in their calendar home, found from the URL's principal (RFC 4791 6.2.1,
 * RFC 5397), as a server's root address (https://caldav.fastmail.com/, https://caldav.icloud.com/,
 * Nextcloud's /remote.php/dav) leads there. Throws a CalDavError saying what went wrong.
 */
export async function discoverCalendar(account: CalDavAccount): Promise<string> {
  let url: URL;
  try {
    url = new URL(account.url);
  } catch {
    throw new CalDavError("unreachable", "not a URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new CalDavError("unreachable", "not an http(s) URL");
  const props = "<d:resourcetype/><d:current-user-principal/><c:calendar-home-set/><c:supported-calendar-component-set/>";
  const [self] = await propfind(account, url.toString(), "0", props);
  if (!self) throw new CalDavError("not_calendar", "PROPFIND answered no resource");
  if (isCalendar(self.props)) {
    if (!takesEvents(self.props)) throw new CalDavError("not_calendar", "the calendar takes no events");
    return self.href;
  }
  let home = first(self.props, "calendar-home-set");
  if (!home) {
    const principal = first(first(self.props, "current-user-principal") ?? "", "href");
    if (principal) {
      const [found] = await propfind(account, new URL(decodeXml(principal.trim()), self.href).toString(), "0", "<c:calendar-home-set/>");
      home = found ? first(found.props, "calendar-home-set") : null;
    }
  }
  const homeHref = home ? first(home, "href") : null;
  const homeUrl = homeHref ? new URL(decodeXml(homeHref.trim()), self.href).toString() : self.href;
  const children = await propfind(account, homeUrl, "1", "<d:resourcetype/><c:supported-calendar-component-set/>");
  const calendar = children.find((child) => isCalendar(child.props) && takesEvents(child.props));
  if (!calendar) throw new CalDavError("not_calendar", "no calendar found at this address");
  return calendar.href;
}

export interface BusyInterval {
  start: number;
  end: number;
}

const caldavTime = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");

/**
 * The calendar's busy times overlapping [from, to): every event but transparent (free) and
 * cancelled ones and those `skip` names (Sakina's own bookings, which block slots already),
 * recurring events expanded here (RRULE, EXDATE, RECURRENCE-ID overrides), all-day events as
 * their whole days in `timeZone`.
 */
export async function readBusy(
  account: CalDavAccount & { calendarUrl: string },
  from: number,
  to: number,
  options: { skip: (uid: string) => boolean; dayStart: (date: string) => number; timeoutMs?: number },
): Promise<BusyInterval[]> {
  const body = `<?xml version="1.0" encoding="utf-8"?>
<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
  <d:prop><d:getetag/><c:calendar-data/></d:prop>
  <c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"><c:time-range start="${caldavTime(from)}" end="${caldavTime(to)}"/></c:comp-filter></c:comp-filter></c:filter>
</c:calendar-query>`;
  const response = await request(account, "REPORT", account.calendarUrl, { body, headers: { Depth: "1" }, timeoutMs: options.timeoutMs });
  const text = await response.text();
  if (response.status !== 207)
    throw new CalDavError(
      "not_calendar",
      `REPORT ${safeUrl(account.calendarUrl)}: ${response.status} ${response.statusText}`,
      response.status,
    );
  const busy: BusyInterval[] = [];
  for (const resource of multistatus(text, account.calendarUrl)) {
    const data = first(resource.props, "calendar-data");
    if (!data) continue;
    for (const event of Object.values(ical.sync.parseICS(decodeXml(data)))) {
      if (!event || event.type !== "VEVENT") continue;
      busy.push(...eventBusy(event, from, to, options));
    }
  }
  return busy;
}

function eventBusy(
  event: VEvent,
  from: number,
  to: number,
  options: { skip: (uid: string) => boolean; dayStart: (date: string) => number },
) {
  if (options.skip(String(event.uid ?? ""))) return [];
  const free = (item: { transparency?: string; status?: string }) => item.transparency === "TRANSPARENT" || item.status === "CANCELLED";
  const instances = event.rrule
    ? ical.expandRecurringEvent(event, { from: new Date(from - 86_400_000), to: new Date(to), expandOngoing: true }).map((instance) => ({
        start: instance.start,
        end: instance.end,
        free: free((instance as { event?: VEvent }).event ?? event),
      }))
    : [{ start: event.start, end: event.end ?? event.start, free: free(event) }];
  const intervals: BusyInterval[] = [];
  for (const instance of instances) {
    if (instance.free) continue;
    let start = instance.start.getTime();
    let end = instance.end.getTime();
    if (instance.start.dateOnly || event.datetype === "date") {
      // A whole day (or days) of the owner's own zone: node-ical gives local midnights of this process.
      const day = (date: Date) =>
        `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;
      start = options.dayStart(day(instance.start));
      const endDay = end > instance.start.getTime() ? day(instance.end) : day(new Date(instance.start.getTime() + 86_400_000));
      end = options.dayStart(endDay);
    }
    if (end <= start || end <= from || start >= to) continue;
    intervals.push({ start, end });
  }
  return intervals;
}

/** The resource's current ETag, or null when it does not exist. */
async function currentEtag(account: CalDavAccount, href: string) {
  const response = await request(account, "GET", href);
  await response.body?.cancel();
  if (response.status === 404 || response.status === 410) return null;
  if (!response.ok)
    throw new CalDavError("unreachable", `GET ${safeUrl(href)}: ${response.status} ${response.statusText}`, response.status);
  return response.headers.get("etag");
}

/**
 * Writes the event at `href` so it is `ics`, whatever is there now: If-Match on the ETag last seen
 * (If-None-Match for a new one), and when another write came between (412), once more on the
 * resource's current ETag: the booking is the truth. Returns the new ETag (null when the server gave none).
 */
export async function putEvent(account: CalDavAccount, href: string, ics: string, etag: string | null): Promise<string | null> {
  let condition: Record<string, string> = etag ? { "If-Match": etag } : { "If-None-Match": "*" };
  for (let attempt = 0; attempt < 3; attempt++) {
    const response = await request(account, "PUT", href, { body: ics, headers: condition });
    await response.body?.cancel();
    if (response.ok) return response.headers.get("etag");
    if (response.status !== 412) {
      throw new CalDavError("unreachable", `PUT ${safeUrl(href)}: ${response.status} ${response.statusText}`, response.status);
    }
    const current = await currentEtag(account, href);
    condition = current ? { "If-Match": current } : { "If-None-Match": "*" };
  }
  throw new CalDavError("unreachable", `PUT ${safeUrl(href)}: the event kept changing`);
}

/** Removes the event at `href` (gone already is done), If-Match on its ETag, as putEvent. */
export async function deleteEvent(account: CalDavAccount, href: string, etag: string | null) {
  let condition: Record<string, string> = etag ? { "If-Match": etag } : {};
  for (let attempt = 0; attempt < 3; attempt++) {
    const response = await request(account, "DELETE", href, { headers: condition });
    await response.body?.cancel();
    if (response.ok || response.status === 404 || response.status === 410) return;
    if (response.status !== 412) {
      throw new CalDavError("unreachable", `DELETE ${safeUrl(href)}: ${response.status} ${response.statusText}`, response.status);
    }
    const current = await currentEtag(account, href);
    if (!current) return;
    condition = { "If-Match": current };
  }
  throw new CalDavError("unreachable", `DELETE ${safeUrl(href)}: the event kept changing`);
}
