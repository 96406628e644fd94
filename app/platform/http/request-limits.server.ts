import type { IncomingMessage, ServerResponse } from "node:http";
import type express from "express";
import { fallbackLanguage, isLanguage, supportedLanguages } from "~/i18n";
import { localeCookie } from "~/platform/http/cookies.server";
import { JSON_LIMITS, jsonShapeProblem } from "~/platform/http/bounded-json.server";
import { translatorFor } from "~/platform/i18n.server";

/**
 * How much work one request may cause before a route sees it. Every body is read here, under a
 * byte limit, and a form is counted field by field in linear time: the form library the routes
 * use (conform) is quadratic in repeats of one field name, so 240 KB of `a=1&a=1…` stalled the
 * event loop for half a minute before these caps existed.
 */
export interface RequestLimits {
  /** Pages' forms (and Twilio's urlencoded webhooks). */
  formBytes: number;
  /** JSON APIs and the Stripe webhook. */
  jsonBytes: number;
  /** Fields in one form, all names together. */
  maxFields: number;
  /** Values sent under one field name. */
  maxRepeats: number;
  /** Addresses that take a recording (multipart): their own, larger cap instead of `jsonBytes`. */
  uploads: Record<string, number>;
}

export const defaultRequestLimits: RequestLimits = {
  formBytes: 64 * 1024,
  jsonBytes: 1024 * 1024,
  maxFields: 200,
  maxRepeats: 20,
  // A voice turn: up to 2 MB of audio (the route checks that) plus the form's other fields.
  uploads: { "/api/conversation/voice": 2 * 1024 * 1024 + 64 * 1024 },
};

/** The methods React Router answers; anything else (OPTIONS, TRACE…) is refused here. */
const ROUTED_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]);

const FORM_TYPES = new Set(["application/x-www-form-urlencoded", "multipart/form-data"]);

/** Paths whose clients speak JSON (scripts, Stripe) as well as forms (Twilio). */
function speaksJson(pathname: string) {
  return pathname.startsWith("/api/") || pathname.startsWith("/webhooks/");
}

const buffered = new WeakMap<IncomingMessage, Buffer>();

/** The body `boundedBodies` read for this request, if it had one. */
export function bufferedBody(req: IncomingMessage): Buffer | undefined {
  return buffered.get(req);
}

/**
 * Express middleware: refuses a declared or actual body over the limit with 413 (and stops
 * reading the socket), a non-form body on a page with 415, and a form with too many fields with
 * 413; keeps the body it read for the request handler.
 */
export function boundedBodies(limits: RequestLimits = defaultRequestLimits): express.RequestHandler {
  return (req, res, next) => {
    const json = speaksJson(req.path);
    // PostgreSQL text cannot hold NUL, and no address, name or message needs one.
    if (/%00|\0/i.test(req.originalUrl)) {
      void refuse(req, res, 400, json, (t) => t("limits.nul"));
      return;
    }
    if (!ROUTED_METHODS.has(req.method)) {
      res.setHeader("Allow", [...ROUTED_METHODS].join(", "));
      void refuse(req, res, 405, json, (t) => t("limits.method", { method: req.method }));
      return;
    }
    if (req.method === "GET" || req.method === "HEAD") return next();
    const limit = limits.uploads[req.path] ?? (json ? limits.jsonBytes : limits.formBytes);
    const declared = Number(req.headers["content-length"] ?? NaN);
    if (declared > limit) {
      void refuse(req, res, 413, json, (t) => t("limits.tooLarge", { limit: formatBytes(limit) }));
      return;
    }
    const mediaType = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    const hasBody = declared > 0 || req.headers["transfer-encoding"] !== undefined;
    if (hasBody && !json && !FORM_TYPES.has(mediaType)) {
      void refuse(req, res, 415, json, (t) => t("limits.formsOnly", { type: mediaType || "?" }));
      return;
    }

    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stopReading();
        chunks.length = 0;
        void refuse(req, res, 413, json, (t) => t("limits.tooLarge", { limit: formatBytes(limit) }));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stopReading();
      const body = Buffer.concat(chunks, size);
      void checkForm(body, mediaType, req.headers["content-type"] ?? "", limits).then((problem) => {
        if (problem === "nul") {
          void refuse(req, res, 400, json, (t) => t("limits.nul"));
        } else if (problem === "too-many") {
          void refuse(req, res, 413, json, (t) => t("limits.tooManyFields", { fields: limits.maxFields, repeats: limits.maxRepeats }));
        } else if (problem === "malformed") {
          void refuse(req, res, 400, json, (t) => t("limits.malformedForm"));
        } else if (problem === "json-shape") {
          void refuse(req, res, 413, json, (t) =>
            t("limits.jsonTooComplex", { depth: JSON_LIMITS.maxDepth, values: JSON_LIMITS.maxValues }),
          );
        } else {
          buffered.set(req, body);
          next();
        }
      });
    };
    const onError = (error: Error) => {
      stopReading();
      next(error);
    };
    function stopReading() {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
    }
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  };
}

type Problem = "too-many" | "malformed" | "nul" | "json-shape" | null;

async function checkForm(body: Buffer, mediaType: string, contentType: string, limits: RequestLimits): Promise<Problem> {
  if (mediaType === "application/x-www-form-urlencoded") {
    return checkFields(new URLSearchParams(body.toString("utf8")), limits);
  }
  if (mediaType === "multipart/form-data") {
    try {
      return checkFields(await new Response(new Uint8Array(body), { headers: { "Content-Type": contentType } }).formData(), limits);
    } catch {
      return "malformed";
    }
  }
  // Any other body (JSON for the APIs): a NUL written raw or as a JSON escape, or a shape whose
  // parse alone would stall the server (the Stripe webhook's parse included).
  if (body.includes(0) || /\\u0000/i.test(body.toString("utf8"))) return "nul";
  return jsonShapeProblem(body) ? "json-shape" : null;
}

function checkFields(fields: Iterable<[string, FormDataEntryValue]>, limits: RequestLimits): Problem {
  const seen = new Map<string, number>();
  let total = 0;
  for (const [name, value] of fields) {
    if (name.includes("\0") || (typeof value === "string" && value.includes("\0"))) return "nul";
    total += 1;
    const repeats = (seen.get(name) ?? 0) + 1;
    seen.set(name, repeats);
    if (total > limits.maxFields || repeats > limits.maxRepeats) return "too-many";
  }
  return null;
}

/** What a refused client may still send, read and dropped, before it is answered and cut off. */
const DRAIN_BYTES = 4 * 1024 * 1024;
const DRAIN_MS = 5000;

/**
 * Answers and closes the connection. The rest of the body is read and dropped first, up to
 * DRAIN_BYTES within DRAIN_MS and never kept: a client that writes its whole body before it reads
 * the answer (Node 24's fetch, many scripts) gets the refusal instead of a broken pipe, since the
 * server closes the socket as the answer ends. A body declared larger than that is not waited
 * for. JSON `{ error }` where clients speak JSON, a line of text elsewhere, in the visitor's language.
 */
async function refuse(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  json: boolean,
  message: (t: Awaited<ReturnType<typeof translatorFor>>) => string,
) {
  const [text] = await Promise.all([languageOf(req).then(translatorFor).then(message), dropRestOfBody(req)]);
  if (res.headersSent) return;
  res.statusCode = status;
  res.setHeader("Connection", "close");
  res.setHeader("Content-Type", json ? "application/json; charset=utf-8" : "text/plain; charset=utf-8");
  res.end(json ? JSON.stringify({ error: text }) : `${text}\n`, () => {
    req.socket.end();
    // A client that keeps sending into a half-closed socket is cut off.
    req.socket.setTimeout(DRAIN_MS, () => req.socket.destroy());
  });
}

/** Reads what is left of a refused request's body and drops it: resolves at its end, or past the drain's limits. */
function dropRestOfBody(req: IncomingMessage) {
  if (req.complete || Number(req.headers["content-length"] ?? 0) > DRAIN_BYTES) {
    req.pause();
    return Promise.resolve();
  }
  return new Promise<void>((resolve) => {
    let dropped = 0;
    const onData = (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > DRAIN_BYTES) done();
    };
    const timer = setTimeout(done, DRAIN_MS);
    function done() {
      clearTimeout(timer);
      req.off("data", onData).off("end", done).off("error", done).off("close", done);
      req.pause();
      resolve();
    }
    req.on("data", onData).once("end", done).once("error", done).once("close", done);
    req.resume();
  });
}

async function languageOf(req: IncomingMessage): Promise<string> {
  const fromCookie: unknown = await localeCookie.parse(req.headers.cookie ?? null).catch(() => null);
  if (isLanguage(fromCookie)) return fromCookie;
  const accepted = String(req.headers["accept-language"] ?? "")
    .split(",")
    .map((part) => part.split(";")[0]!.trim().slice(0, 2).toLowerCase());
  return accepted.find((code) => (supportedLanguages as readonly string[]).includes(code)) ?? fallbackLanguage;
}

function formatBytes(bytes: number) {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MB` : `${bytes / 1024} KB`;
}
