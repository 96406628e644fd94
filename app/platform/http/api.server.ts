import { data } from "react-router";
import type { z } from "zod";
import { JSON_LIMITS, parseBoundedJson } from "~/platform/http/bounded-json.server";

/** A JSON API failure in the shape the spec's clients read: `{ error }`, plus field messages. */
export function apiError(status: number, error: string, extra: Record<string, unknown> = {}) {
  return data({ error, ...extra }, { status });
}

/**
 * The request's JSON body as an object, parsed by the one bounded parse (`parseBoundedJson`);
 * malformed JSON is the client's error (400) and a body nested too deep or too long is 413,
 * never a 500 nor a stalled server.
 */
export async function readJsonBody(request: Request): Promise<Record<string, unknown>> {
  const parsed = parseBoundedJson(await request.text().catch(() => ""));
  if (parsed.ok && parsed.value && typeof parsed.value === "object" && !Array.isArray(parsed.value)) {
    return parsed.value as Record<string, unknown>;
  }
  if (!parsed.ok && parsed.problem !== "malformed") {
    throw apiError(413, `The JSON body may nest ${JSON_LIMITS.maxDepth} levels deep and hold ${JSON_LIMITS.maxValues} values at most.`);
  }
  throw apiError(400, "The request body must be a JSON object.");
}

export function fieldErrors(error: z.ZodError) {
  const fields: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = issue.path.join(".") || "_";
    (fields[key] ??= []).push(issue.message);
  }
  return fields;
}

/** Only POST is accepted on mutation endpoints. */
export function methodNotAllowed() {
  return apiError(405, "Use POST for this endpoint.");
}
