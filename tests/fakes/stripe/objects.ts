import { randomBytes } from "node:crypto";
import type http from "node:http";
import qs from "qs";
import type { Obj } from "./types";
import { describe, bad, invalid } from "./validation";

// Small helpers

export const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export function random(length: number, alphabet = BASE62) {
  const bytes = randomBytes(length);
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[bytes[i]! % alphabet.length];
  return out;
}
export function newId(prefix: string) {
  return `${prefix}_${random(24)}`;
}
export function now() {
  return Math.floor(Date.now() / 1000);
}
export function clone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
export function mergeMetadata(current: Record<string, string> | null | undefined, update: unknown): Record<string, string> {
  if (update === undefined) return { ...(current ?? {}) };
  if (update === null) return {};
  const out = { ...(current ?? {}) };
  for (const [k, v] of Object.entries(update as Record<string, string>)) {
    if (v === "") delete out[k];
    else out[k] = v;
  }
  return out;
}
export const ZERO_DECIMAL = new Set([
  "bif",
  "clp",
  "djf",
  "gnf",
  "jpy",
  "kmf",
  "krw",
  "mga",
  "pyg",
  "rwf",
  "ugx",
  "vnd",
  "vuv",
  "xaf",
  "xof",
  "xpf",
]);
export const MINIMUM_CHARGE: Record<string, number> = {
  usd: 50,
  eur: 50,
  gbp: 30,
  chf: 50,
  cad: 50,
  aud: 50,
  nzd: 50,
  sgd: 50,
  hkd: 400,
  jpy: 50,
  dkk: 250,
  nok: 300,
  sek: 300,
  pln: 200,
  czk: 1500,
  huf: 17500,
  mxn: 1000,
  brl: 50,
  inr: 50,
  aed: 200,
  myr: 200,
  ron: 200,
  bgn: 100,
  thb: 1000,
};
export function formatAmount(amount: number, currency: string) {
  const divisor = ZERO_DECIMAL.has(currency) ? 1 : 100;
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency: currency.toUpperCase() }).format(amount / divisor);
  } catch {
    return `${(amount / divisor).toFixed(divisor === 1 ? 0 : 2)} ${currency.toUpperCase()}`;
  }
}
export function checkCurrency(value: unknown, param: string): string {
  if (typeof value !== "string" || !/^[a-zA-Z]{3}$/.test(value))
    throw bad(
      `Invalid currency: ${describe(value)}. Stripe currently supports these currencies: usd, eur, gbp, … (see https://docs.stripe.com/currencies)`,
      param,
    );
  return value.toLowerCase();
}
export function addInterval(from: number, interval: string, count: number): number {
  const date = new Date(from * 1000);
  if (interval === "day") date.setUTCDate(date.getUTCDate() + count);
  else if (interval === "week") date.setUTCDate(date.getUTCDate() + 7 * count);
  else if (interval === "month") date.setUTCMonth(date.getUTCMonth() + count);
  else date.setUTCFullYear(date.getUTCFullYear() + count);
  return Math.floor(date.getTime() / 1000);
}
export function escapeHtml(value: string) {
  return value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}
export function redactKey(key: string) {
  const prefix = /^(sk|pk|rk)_(test|live)_/.exec(key)?.[0] ?? key.slice(0, 3);
  const tail = key.length > prefix.length + 4 ? key.slice(-4) : "";
  return `${prefix}${"*".repeat(Math.max(key.length - prefix.length - tail.length, 1))}${tail}`;
}
export function diff(before: Obj, after: Obj): Obj {
  const out: Obj = {};
  for (const key of Object.keys(after)) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) out[key] = before[key] === undefined ? null : clone(before[key]);
  }
  return out;
}
/**
 * One page of a list, as Stripe pages it: `limit` (1 to 100, default 10) objects, `has_more` when
 * more follow; `starting_after` (an object id) gives the page after that object, `ending_before`
 * the page before it. A cursor that names no object of the list is refused, as Stripe does.
 */
export function list(items: Obj[], url: string, page: number | { limit?: number; starting_after?: string; ending_before?: string } = {}) {
  const { limit = 10, starting_after: after, ending_before: before } = typeof page === "number" ? { limit: page } : page;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalid("Invalid limit: must be between 1 and 100", { param: "limit" });
  if (after !== undefined && before !== undefined)
    throw invalid("You may only specify one of these parameters: ending_before, starting_after.", { param: "starting_after" });
  const cursor = after ?? before;
  if (cursor === undefined) return { object: "list", data: items.slice(0, limit), has_more: items.length > limit, url };
  const at = items.findIndex((item) => item.id === cursor);
  if (at < 0) throw invalid(`No such object: '${cursor}'`, { param: after !== undefined ? "starting_after" : "ending_before" });
  if (after !== undefined) {
    const rest = items.slice(at + 1);
    return { object: "list", data: rest.slice(0, limit), has_more: rest.length > limit, url };
  }
  const earlier = items.slice(0, at);
  return { object: "list", data: earlier.slice(-limit), has_more: earlier.length > limit, url };
}
export function newestFirst(a: Obj, b: Obj) {
  return b.created - a.created || b._seq - a._seq;
}
export async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
export function parseForm(text: string): Obj {
  return qs.parse(text, { depth: 10, arrayLimit: 1000, parameterLimit: 10_000 }) as Obj;
}

/** The fields of a PaymentIntent that a publishable key may see. */
export const PUBLIC_PI_FIELDS = [
  "id",
  "object",
  "amount",
  "amount_details",
  "automatic_payment_methods",
  "canceled_at",
  "cancellation_reason",
  "capture_method",
  "client_secret",
  "confirmation_method",
  "created",
  "currency",
  "description",
  "last_payment_error",
  "livemode",
  "next_action",
  "payment_method",
  "payment_method_configuration_details",
  "payment_method_types",
  "processing",
  "receipt_email",
  "setup_future_usage",
  "shipping",
  "source",
  "status",
];

/** The fields of a SetupIntent that a publishable key may see. */
export const PUBLIC_SI_FIELDS = [
  "id",
  "object",
  "automatic_payment_methods",
  "cancellation_reason",
  "client_secret",
  "created",
  "description",
  "last_setup_error",
  "livemode",
  "next_action",
  "payment_method",
  "payment_method_configuration_details",
  "payment_method_types",
  "status",
  "usage",
];

export interface Ctx {
  requestId: string;
  idempotencyKey?: string;
  auth: "secret" | "publishable";
  events: Obj[];
}

export interface Route {
  method: string;
  pattern: RegExp;
  publishable?: boolean;
  handler: (ctx: Ctx, raw: Obj, match: string[]) => Obj;
}
