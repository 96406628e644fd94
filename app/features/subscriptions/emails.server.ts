import type { Subscriber } from "#models/subscribers";
import type { AppServices } from "~/platform/services.server";

// What the subscriber's e-mails share: the dashboard's address, dates in the subscriber's zone and language.

export function dashboardUrl(services: AppServices, subscriberId: number) {
  return `${services.publicOrigin()}/dashboard?userId=${subscriberId}`;
}

export function formatDate(date: Date | null, subscriber: Subscriber) {
  if (!date) return "";
  return new Intl.DateTimeFormat(subscriber.preferredLanguage, { dateStyle: "long", timeZone: subscriber.timeZone }).format(date);
}

export function formatDateTime(date: Date, subscriber: Subscriber) {
  return new Intl.DateTimeFormat(subscriber.preferredLanguage, {
    dateStyle: "full",
    timeStyle: "short",
    timeZone: subscriber.timeZone,
  }).format(date);
}
