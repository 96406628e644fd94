import type { Obj } from "./types";

// Errors and parameter validation

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: Obj,
    readonly options: { validation?: boolean; headers?: Record<string, string> } = {},
  ) {
    super(String(error.message));
  }
}

export function docUrl(code: string) {
  return `https://docs.stripe.com/error-codes/${code.replace(/_/g, "-")}`;
}

export function invalid(message: string, extra: { param?: string; code?: string; status?: number; validation?: boolean } = {}) {
  const error: Obj = { type: "invalid_request_error", message };
  if (extra.code) {
    error.code = extra.code;
    error.doc_url = docUrl(extra.code);
  }
  if (extra.param) error.param = extra.param;
  return new ApiError(extra.status ?? 400, error, { validation: extra.validation });
}

export function noSuch(kind: string, id: string, param?: string) {
  return invalid(`No such ${kind}: '${id}'`, { code: "resource_missing", param, status: param ? 400 : 404 });
}

export type Spec =
  | "string"
  | "int"
  | "decimal"
  | "bool"
  | "metadata"
  | "expand"
  | "any"
  | "ts_or_now"
  | "int_or_inf"
  | { enum: readonly string[] }
  | { obj: Record<string, Spec>; req?: readonly string[] }
  | { arr: Spec };

export const S = "string" as const;
export const I = "int" as const;
export const B = "bool" as const;
export const A = "any" as const;
export const M = "metadata" as const;
export const X = "expand" as const;

export function describe(value: unknown) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

export function listWords(values: readonly string[]) {
  if (values.length <= 1) return values.join("");
  return `${values.slice(0, -1).join(", ")}, or ${values[values.length - 1]}`;
}

export function toArray(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value;
  if (value && typeof value === "object") {
    const keys = Object.keys(value);
    if (keys.every((k) => /^\d+$/.test(k))) return keys.sort((a, b) => Number(a) - Number(b)).map((k) => (value as Obj)[k]);
  }
  return null;
}

export function bad(message: string, param: string, code?: string) {
  return invalid(message, { param, code, validation: true });
}

export function check(value: unknown, spec: Spec, path: string): unknown {
  if (spec === "any") return value;
  // An empty value unsets a parameter (`description=`), as Stripe reads it.
  if (value === "") return null;
  if (typeof spec === "string") {
    switch (spec) {
      case "string":
        if (typeof value !== "string") throw bad(`Invalid string: ${describe(value)}`, path);
        return value;
      case "int":
        if (typeof value !== "string" || !/^-?\d+$/.test(value))
          throw bad(`Invalid integer: ${describe(value)}`, path, "parameter_invalid_integer");
        return Number(value);
      case "decimal":
        if (typeof value !== "string" || !/^-?\d+(\.\d+)?$/.test(value)) throw bad(`Invalid decimal: ${describe(value)}`, path);
        return value;
      case "bool":
        if (value !== "true" && value !== "false") throw bad(`Invalid boolean: ${describe(value)}`, path);
        return value === "true";
      case "ts_or_now":
        if (value === "now") return "now";
        if (typeof value !== "string" || !/^\d+$/.test(value))
          throw bad(`Invalid timestamp: must be an integer Unix timestamp in the future, or 'now'.`, path);
        return Number(value);
      case "int_or_inf":
        if (value === "inf") return "inf";
        if (typeof value !== "string" || !/^\d+$/.test(value))
          throw bad(`Invalid integer: ${describe(value)}`, path, "parameter_invalid_integer");
        return Number(value);
      case "metadata": {
        if (typeof value !== "object" || value === null || Array.isArray(value)) throw bad(`Invalid object`, path);
        const entries = Object.entries(value as Obj);
        if (entries.length > 50) throw bad(`You can specify up to 50 metadata keys.`, path);
        const out: Record<string, string> = {};
        for (const [k, v] of entries) {
          if (typeof v !== "string") throw bad(`Invalid value type: ${describe(v)} must be a string`, `${path}[${k}]`);
          if (k.length > 40)
            throw bad(
              `Metadata keys can have up to 40 characters, but you passed in a key that is ${k.length} characters. Invalid key: ${k}`,
              `${path}[${k}]`,
            );
          if (v.length > 500)
            throw bad(
              `Metadata values can have up to 500 characters, but you passed in a value that is ${v.length} characters. Invalid value: ${v}`,
              `${path}[${k}]`,
            );
          out[k] = v;
        }
        return out;
      }
      case "expand": {
        const list = toArray(value);
        if (!list || list.some((v) => typeof v !== "string")) throw bad("Invalid array", path);
        return list;
      }
    }
  }
  if ("enum" in spec) {
    if (typeof value !== "string" || !spec.enum.includes(value)) throw bad(`Invalid ${path}: must be one of ${listWords(spec.enum)}`, path);
    return value;
  }
  if ("arr" in spec) {
    const list = toArray(value);
    if (!list) throw bad("Invalid array", path);
    return list.map((item, i) => check(item, spec.arr, `${path}[${i}]`));
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw bad("Invalid object", path);
  const out: Obj = {};
  for (const [key, item] of Object.entries(value as Obj)) {
    const sub = path ? `${path}[${key}]` : key;
    const child = spec.obj[key];
    if (!child) throw bad(`Received unknown parameter: ${sub}`, sub, "parameter_unknown");
    out[key] = check(item, child, sub);
  }
  for (const key of spec.req ?? []) {
    if (out[key] === undefined || out[key] === null) {
      const sub = path ? `${path}[${key}]` : key;
      throw bad(`Missing required param: ${sub}.`, sub, "parameter_missing");
    }
  }
  return out;
}

export function params(raw: Obj, keys: Record<string, Spec>, req: readonly string[] = []): Obj {
  return check(raw, { obj: keys, req }, "") as Obj;
}

/** Top-level parameters of an endpoint that are accepted (and ignored unless specced). */
export function known(names: string, specs: Record<string, Spec> = {}): Record<string, Spec> {
  const out: Record<string, Spec> = {};
  for (const name of names.split(/\s+/).filter(Boolean)) out[name] = specs[name] ?? "any";
  for (const [name, spec] of Object.entries(specs)) out[name] = spec;
  return out;
}
