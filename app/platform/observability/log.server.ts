import { AsyncLocalStorage } from "node:async_hooks";
import { createRequire } from "node:module";
import { pino, type Logger } from "pino";

/**
 * The app's one logger: a JSON line per event on standard output (pino), for journald, a log
 * shipper or `jq`. Each line carries the ids of the work it belongs to, from `withLogContext`:
 * the request's id (nginx's X-Request-Id, or one made here), and a call's, a job's or a business's
 * id where they apply. Under `npm run dev` the same lines are printed readably (pino-pretty).
 *
 * What a line must never hold (a phone number, an e-mail address, a person's name, a token or a
 * secret) is taken out by the logger itself, in `redact`, on the line as written: whatever a
 * caller passes (a message, an object, an error and its stack, a provider's reply) goes through it,
 * so no call site has to remember. LOG_LEVEL (trace … fatal, default info) sets how much is written.
 */

/** The ids a line gets from the work it is written in (see withLogContext). */
export interface LogContext {
  requestId?: string;
  callId?: number;
  jobId?: string;
  queue?: string;
  businessId?: number;
}

const context = new AsyncLocalStorage<LogContext>();

/** Runs `work` with these ids added to every line it (and everything it awaits) logs. */
export function withLogContext<T>(ids: LogContext, work: () => T): T {
  return context.run({ ...context.getStore(), ...ids }, work);
}

/** The ids of the work in progress (the request id a response echoes, for instance). */
export function currentLogContext(): LogContext {
  return context.getStore() ?? {};
}

const REDACTED = "[redacted]";

/** Keys whose string values are personal or secret, whatever they hold. */
const SECRET_KEYS =
  /"((?:customer|owner|contact|first|last|full|display|caller|account)?[Nn]ame|phone\w*|\w*[Nn]umber|e?mail|email\w*|to|from|token|\w*[Tt]oken|authorization|cookie|password|secret|\w*[Ss]ecret|apiKey|api_key)":"(?:[^"\\]|\\.)*"/g;
/** E-mail addresses. */
const EMAIL = /[\w.!#$%&'*+/=?^`{|}~-]+@[\w-]+(?:\.[\w-]+)+/g;
/**
 * Phone numbers: international (+, or 00 after a space or a quote) with at least 7 digits, Saudi
 * and Gulf mobile numbers written locally (05…), and North American ones ((212) 555-0199). Never
 * inside a word or an id (a UUID's "-0012-" stays).
 */
const PHONE =
  /(?<![\w+])\+[1-9](?:[\s().-]?\d){6,14}(?!\d)|(?<=^|[\s"'(:=,])00[1-9](?:[\s().-]?\d){6,14}(?!\d)|(?<![\w-])05\d(?:[\s-]?\d){7}(?![\w-])|(?<![\w-])\(?\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}(?![\w-])/g;
/** Credentials: bearer/basic headers, Stripe and Twilio secrets, JWTs, token-like query parameters. */
const CREDENTIALS =
  /\b(?:Bearer|Basic)\s+[\w.~+/=-]+|\b(?:sk|rk|whsec|pk)_(?:test|live)?_?\w{8,}|\beyJ[\w-]+\.[\w-]+\.[\w-]+|([?&;](?:token|key|secret|signature|sig|code|password)=)[^&\s"\\]+/gi;
/** Long opaque strings (session ids, signed links, capability tokens); ids the app shows (UUIDs, numbers) stay. */
const OPAQUE = /(?<![\w-])[A-Za-z0-9_-]{32,}(?![\w-])/g;
/** What stays of those: UUIDs, a provider's object ids (Twilio's CA… and AC…), kebab-case words. */
const NOT_SECRET = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[A-Z]{2}[0-9a-f]{32}|[a-z]+(?:-[a-z]+)+)$/;

/**
 * A written line with everything personal or secret replaced by "[redacted]". Works on the JSON
 * text, so it reaches every field, nested objects and error stacks alike.
 */
export function redact(line: string): string {
  return line
    .replace(SECRET_KEYS, (_match, key: string) => `"${key}":"${REDACTED}"`)
    .replace(CREDENTIALS, (_match, param?: string) => (param ? `${param}${REDACTED}` : REDACTED))
    .replace(EMAIL, REDACTED)
    .replace(PHONE, REDACTED)
    .replace(OPAQUE, (match) => (NOT_SECRET.test(match) ? match : REDACTED));
}

/**
 * Where tests collect the lines (tests/support/setup.ts): called with each line as written, after
 * redaction; true means the test took it and it is not printed.
 */
const SINK = Symbol.for("sakina.log-sink");
type Sink = (line: string, level: number) => boolean;

/**
 * The logger's own settings, read from the environment directly: it exists before the env is
 * parsed (a refused variable is itself logged), and its variables are in envSchema too, so
 * `.env.example` and the parse list them.
 */
const settings = Object.fromEntries(["NODE_ENV", "LOG_LEVEL", "LOG_FORMAT"].map((name) => [name, globalThis.process.env[name]]));

function destination() {
  const dev = settings.NODE_ENV === "development" && settings.LOG_FORMAT !== "json";
  let pretty: { write(line: string): void } | null = null;
  if (dev) {
    try {
      const prettyFactory = createRequire(import.meta.url)("pino-pretty") as (options: object) => { write(line: string): void };
      pretty = prettyFactory({ sync: true, colorize: process.stdout.isTTY, ignore: "pid,hostname", translateTime: "HH:MM:ss.l" });
    } catch {
      // pino-pretty is a development dependency: without it the lines stay JSON.
    }
  }
  return {
    write(line: string) {
      const safe = redact(line);
      const sink = (globalThis as { [SINK]?: Sink })[SINK];
      if (sink) {
        const level = Number(/"level":(\d+)/.exec(safe)?.[1] ?? 30);
        if (sink(safe, level)) return;
      }
      if (pretty) pretty.write(safe);
      // Warnings and errors on standard error (a supervisor, or a test, watches it), the rest on standard output.
      else if (/"level":(?:[4-9]\d)/.test(safe)) process.stderr.write(safe);
      else process.stdout.write(safe);
    },
  };
}

/** The process's logger. `log.child({ callId })` for work about one thing; withLogContext for everything under a request or a job. */
export const log: Logger = pino(
  {
    level: settings.LOG_LEVEL ?? "info",
    base: { pid: process.pid },
    // Ids of the request or job the line is written in.
    mixin: () => ({ ...context.getStore() }),
    serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
  },
  destination(),
);

/** An error, as logged: its message and stack (and a cause's); anything else thrown, as text. */
export function errorFields(error: unknown) {
  return error instanceof Error ? { err: error } : { err: { message: String(error) } };
}
