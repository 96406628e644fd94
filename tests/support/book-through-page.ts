import { expect } from "vitest";
import { utcToZoned, zonedTimeToUtc } from "~/lib/zoned-time";
import type { httpClient } from "./http-client";

type Client = ReturnType<typeof httpClient>;

/**
 * Books a service of /book/{link} the way a visitor without JavaScript does: the first free time
 * from tomorrow on, the contact form, the confirm step, the done page. Returns each step's HTML.
 */
export async function bookThroughPage(
  client: Client,
  link: string,
  options: { serviceName: string; phone: string; email: string; name?: string; lng?: string; tz?: string; businessZone?: string },
) {
  const lng = options.lng ?? "en";
  const services = (await (await client.get(`/api/booking/services/${link}`)).json()) as { id: number; name: string }[];
  const service = services.find((s) => s.name === options.serviceName);
  if (!service) throw new Error(`no service ${options.serviceName}`);
  let date = "";
  let time = "";
  for (let day = 1; day <= 30 && !time; day++) {
    date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
    const slots = (await (await client.get(`/api/booking/availability/${link}/${date}/${service.id}`)).json()) as {
      time: string;
      available: boolean;
    }[];
    time = slots.find((slot) => slot.available)?.time ?? "";
  }
  if (!time) throw new Error("no free time in 30 days");
  // A visitor whose browser said its zone (app/ui/enhance.js adds it): the flow carries it, and
  // the page's dates and times are that zone's (the API's are the business's).
  if (options.tz) ({ date, time } = inZone(date, time, options.businessZone ?? "America/New_York", options.tz));
  const tz = options.tz ? `&tz=${encodeURIComponent(options.tz)}` : "";
  const contactUrl = `/book/${link}?service=${service.id}&date=${date}&time=${time}&lng=${lng}${tz}`;
  const contactHtml = await (await client.get(contactUrl)).text();
  const contact = await client.postForm(
    contactUrl,
    {
      intent: "contact",
      service: String(service.id),
      date,
      time,
      name: options.name ?? "Layla Hassan",
      phone: options.phone,
      email: options.email,
      ...(options.tz ? { tz: options.tz } : {}),
    },
    { tokenFrom: contactUrl },
  );
  expect(contact.status, await contact.clone().text()).toBe(302);
  const confirmUrl = contact.headers.get("location")!;
  const confirmHtml = await (await client.get(confirmUrl)).text();
  const idempotencyKey = /name="idempotencyKey" value="([^"]+)"/.exec(confirmHtml)?.[1] ?? "";
  const confirmed = await client.postForm(
    confirmUrl,
    { intent: "confirm", service: String(service.id), date, time, idempotencyKey, ...(options.tz ? { tz: options.tz } : {}) },
    { tokenFrom: confirmUrl },
  );
  expect(confirmed.status).toBe(302);
  const doneHtml = await (await client.get(confirmed.headers.get("location")!)).text();
  return { serviceId: service.id, date, time, contactHtml, confirmHtml, doneHtml };
}

/** A business's date and wall time ("HH:MM") as the same instant's date and wall time in `zone`. */
export function inZone(date: string, time: string, businessZone: string, zone: string) {
  const [hours, minutes] = time.split(":").map(Number) as [number, number];
  const local = utcToZoned(zonedTimeToUtc(date, hours * 60 + minutes, businessZone), zone);
  const pad = (n: number) => String(n).padStart(2, "0");
  return { date: local.date, time: `${pad(Math.floor(local.minuteOfDay / 60))}:${pad(local.minuteOfDay % 60)}` };
}

/** The booking page's promise about the confirmation call, as the visitor reads it. */
export function callPromiseIn(html: string) {
  const text = /data-call-promise="[^"]*"[^>]*>([\s\S]*?)<\/p>/.exec(html)?.[1] ?? "";
  return text
    .replace(/<[^>]+>/g, "")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/[\u2068\u2069]/g, "")
    .trim();
}
