import { data } from "react-router";
import type { z } from "zod";

/** A JSON API failure in the shape the spec's clients read: `{ error }`, plus field messages. */
export function apiError(status: number, error: string, extra: Record<string, unknown> = {}) {
  return data({ error, ...extra }, { status });
}

/** The request's JSON body as an object; malformed JSON is the client's error (400), never a 500. */
export async function readJsonBody(request: Request): Promise<Record<string, unknown>> {
  try {
    const body = await request.json();
    if (body && typeof body === "object" && !Array.isArray(body)) return body as Record<string, unknown>;
  } catch {
    // fall through
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
