/**
 * JSON bodies are parsed only after a linear scan of their bytes has bounded their shape:
 * `JSON.parse` spends ~300 ms of CPU on 1 MB of nested `[[[…]]]` or of `{}` after `{}`, so a body
 * within the byte limit could still stall every request behind it. The scan costs about a
 * millisecond per megabyte and refuses before any parse.
 */
export const JSON_LIMITS = {
  /** Arrays and objects inside one another; the app's own bodies and Stripe's events use under 10. */
  maxDepth: 32,
  /** Values in the whole document (every array element and object member); a Stripe event has a few hundred. */
  maxValues: 10_000,
};

export type JsonShapeProblem = "too-deep" | "too-many";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;

/**
 * Whether a JSON text (its UTF-8 bytes or the string) nests deeper or holds more values than
 * `limits` allow, read once: brackets and commas count outside strings only (a backslash escapes
 * the next character). No byte of a multi-byte UTF-8 character is ASCII, so bytes are read as
 * they come. Malformed text is not judged here: the parse that follows refuses it.
 */
export function jsonShapeProblem(text: Uint8Array | string, limits = JSON_LIMITS): JsonShapeProblem | null {
  const at = typeof text === "string" ? (i: number) => text.charCodeAt(i) : (i: number) => text[i]!;
  let depth = 0;
  // The first value of each array or object has no comma before it: its opening bracket counts it.
  let values = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const byte = at(i);
    if (inString) {
      if (byte === BACKSLASH) i += 1;
      else if (byte === QUOTE) inString = false;
      continue;
    }
    if (byte === QUOTE) inString = true;
    else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      depth += 1;
      values += 1;
      if (depth > limits.maxDepth) return "too-deep";
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) depth -= 1;
    else if (byte === COMMA) values += 1;
    if (values > limits.maxValues) return "too-many";
  }
  return null;
}

/** The one parse of a request's JSON text: its shape bounded first, then `JSON.parse`. */
export function parseBoundedJson(text: string): { ok: true; value: unknown } | { ok: false; problem: JsonShapeProblem | "malformed" } {
  const problem = jsonShapeProblem(text);
  if (problem) return { ok: false, problem };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, problem: "malformed" };
  }
}
