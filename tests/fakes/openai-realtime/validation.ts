// Ids, the API's request errors and the parameter checks that build them (missing, unknown, wrong
// type, invalid value, out of range).
import { randomBytes } from "node:crypto";
import type { Obj } from "./types";

// ---------------------------------------------------------------------------------------------
// Ids, errors, validation

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
export function newId(prefix: string, length = 21): string {
  let out = `${prefix}_`;
  for (const b of randomBytes(length)) out += ALNUM[b % 62];
  return out;
}

export const clone = <T>(v: T): T => structuredClone(v);
export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export class RealtimeRequestError extends Error {
  constructor(
    readonly code: string | null,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a decimal";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}
const quoteList = (values: readonly unknown[]) => {
  const q = values.map((v) => `'${String(v)}'`);
  return q.length < 2 ? q.join("") : `${q.slice(0, -1).join(", ")}${q.length > 2 ? "," : ""} and ${q.at(-1)}`;
};
export const join = (path: string, key: string | number) => (typeof key === "number" ? `${path}[${key}]` : path ? `${path}.${key}` : key);
const unknownParam = (path: string) => new RealtimeRequestError("unknown_parameter", `Unknown parameter: '${path}'.`, path);
export const missingParam = (path: string) =>
  new RealtimeRequestError("missing_required_parameter", `Missing required parameter: '${path}'.`, path);
export const invalidType = (path: string, expected: string, value: unknown) =>
  new RealtimeRequestError(
    "invalid_type",
    `Invalid type for '${path}': expected ${expected}, but got ${describeValue(value)} instead.`,
    path,
  );
export const invalidValue = (path: string, value: unknown, supported?: readonly unknown[], detail?: string) =>
  new RealtimeRequestError(
    "invalid_value",
    `Invalid value: '${typeof value === "string" ? value : JSON.stringify(value)}'.${supported ? ` Supported values are: ${quoteList(supported)}.` : ""}${detail ? ` ${detail}` : ""}`,
    path,
  );

export function checkKeys(v: Obj, allowed: readonly string[], path: string): void {
  for (const key of Object.keys(v)) if (!allowed.includes(key)) throw unknownParam(join(path, key));
}
export function reqObj(v: unknown, path: string): Obj {
  if (v === undefined) throw missingParam(path);
  if (!isObj(v)) throw invalidType(path, "an object", v);
  return v;
}
export function str(v: unknown, path: string): string {
  if (v === undefined) throw missingParam(path);
  if (typeof v !== "string") throw invalidType(path, "a string", v);
  return v;
}
export function bool(v: unknown, path: string): boolean {
  if (typeof v !== "boolean") throw invalidType(path, "a boolean", v);
  return v;
}
export function num(v: unknown, path: string, min: number, max: number, integer = false): number {
  if (typeof v !== "number" || !Number.isFinite(v) || (integer && !Number.isInteger(v)))
    throw invalidType(path, integer ? "an integer" : "a number", v);
  if (v < min || v > max) {
    const kind = integer ? "integer" : "decimal";
    const below = v < min;
    throw new RealtimeRequestError(
      `${kind}_${below ? "below_min" : "above_max"}_value`,
      `Invalid '${path}': ${kind} ${below ? "below minimum" : "above maximum"} value. Expected a value ${below ? ">=" : "<="} ${below ? min : max}, but got ${v} instead.`,
      path,
    );
  }
  return v;
}
export function oneOf<T extends string>(v: unknown, values: readonly T[], path: string): T {
  if (v === undefined) throw missingParam(path);
  if (typeof v !== "string") throw invalidType(path, "a string", v);
  if (!values.includes(v as T)) throw invalidValue(path, v, values);
  return v as T;
}
