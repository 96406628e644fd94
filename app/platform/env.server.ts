import { isIP } from "node:net";
import { z } from "zod";

const optionalUrl = z.url().optional();
const optionalString = z.string().min(1).optional();

/**
 * Every environment variable the server reads. `.env.example` documents each one; the app starts
 * with none of them set.
 */
export const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** The address to listen on: every interface by default, as Node and its hosts do; 127.0.0.1 for this machine only. */
  HOST: z.string().min(1).optional(),
  /** Public origin used in links inside e-mails and provider callbacks. */
  APP_URL: optionalUrl,
  /**
   * Where Twilio connects the call audio when a separate bridge process (`npm run start:bridge`)
   * serves it: its public origin (https:// or wss://). Unset: this server, at APP_URL's origin.
   */
  MEDIA_STREAM_ORIGIN: z
    .url()
    .regex(/^(https?|wss?):\/\/[^/]+\/?$/, "must be an origin such as wss://voice.example.com (no path)")
    .optional(),
  /**
   * Behind reverse proxies: how many proxy hops to trust (TRUST_PROXY=1), or which proxy addresses
   * (TRUST_PROXY=10.0.0.0/8,127.0.0.1; also loopback, linklocal, uniquelocal). The visitor's
   * address is then the right-most X-Forwarded-For entry no trusted proxy added. Unset or "false":
   * trust no header, the socket's peer is the visitor. "true" (trust every hop) is refused.
   */
  TRUST_PROXY: z
    .string()
    .default("false")
    .transform((value, ctx) => {
      const trust = parseTrustProxy(value);
      if (typeof trust === "string") {
        ctx.addIssue({ code: "custom", message: trust });
        return z.NEVER;
      }
      return trust;
    }),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  SESSION_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  SUPPORT_EMAIL: z.email().default("support@sakina.app"),
  MAIL_FROM: z.string().min(3).default("Sakina <no-reply@sakina.app>"),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "must be an smtp:// or smtps:// URL")
    .optional(),
  STRIPE_SECRET_KEY: optionalString,
  STRIPE_PUBLISHABLE_KEY: optionalString,
  STRIPE_WEBHOOK_SECRET: optionalString,
  STRIPE_API_URL: optionalUrl,
  STRIPE_JS_URL: z.url().default("https://js.stripe.com/v3/"),
  TWILIO_ACCOUNT_SID: optionalString,
  TWILIO_AUTH_TOKEN: optionalString,
  TWILIO_FROM_NUMBER: optionalString,
  TWILIO_FROM_NUMBER_SA: optionalString,
  TWILIO_FROM_NUMBER_AE: optionalString,
  TWILIO_API_URL: optionalUrl,
  /** The number texts (SMS) go from; without it (or without the account's SID and token) no text is sent. */
  TWILIO_SMS_FROM: optionalString,
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: optionalUrl,
  OPENAI_REALTIME_MODEL: z.string().min(1).default("gpt-realtime"),
  /** A number "call me now" may offer as a test (e.g. your own verified number); the button is hidden without it. */
  CALL_ME_TEST_NUMBER: z
    .string()
    .regex(/^\+[1-9]\d{6,14}$/, "must be an E.164 number, e.g. +966501234567")
    .optional(),
  /** The text model that writes replies (Chat Completions, with tool calls). */
  OPENAI_CHAT_MODEL: z.string().min(1).default("gpt-4.1-mini"),
  /** Speech to text for recorded audio. */
  OPENAI_TRANSCRIBE_MODEL: z.string().min(1).default("gpt-4o-mini-transcribe"),
  /** Text to speech. */
  OPENAI_TTS_MODEL: z.string().min(1).default("gpt-4o-mini-tts"),
  /** Calls in progress at once; more are queued until a line frees up. */
  MAX_CONCURRENT_CALLS: z.coerce.number().int().min(1).max(10_000).default(20),
  /** ISO country codes free demo calls may go to (default: US, Canada, the UK, the EU, Saudi Arabia, the UAE). */
  DEMO_CALL_COUNTRIES: z
    .string()
    .regex(/^[A-Z]{2}(,[A-Z]{2})*$/, "must be comma-separated ISO country codes, e.g. US,CA,GB")
    .default("US,CA,GB,AT,BE,BG,HR,CY,CZ,DK,EE,FI,FR,DE,GR,HU,IE,IT,LV,LT,LU,MT,NL,PL,PT,RO,SK,SI,ES,SE,SA,AE"),
  /** ISO country codes paid empathy calls may go to (default: where the six languages are spoken and Sakina has crisis lines). */
  EMPATHY_CALL_COUNTRIES: z
    .string()
    .regex(/^[A-Z]{2}(,[A-Z]{2})*$/, "must be comma-separated ISO country codes, e.g. US,CA,GB")
    .default("US,CA,GB,IE,AU,NZ,AT,BE,CH,DE,ES,FR,IT,LU,NL,PT,MX,AR,CL,CO,PE,SA,AE,QA,KW,BH,OM,JO,EG,MA"),
  /**
   * Dialling policy (every outbound call): ISO countries this deployment may phone (a business can
   * narrow them in its settings), and calls to one number per day whatever business asks.
   */
  CALL_COUNTRIES: z
    .string()
    .regex(/^[A-Z]{2}(,[A-Z]{2})*$/, "must be comma-separated ISO country codes, e.g. US,CA,GB")
    .default(
      "US,CA,GB,AT,BE,BG,HR,CY,CZ,DK,EE,FI,FR,DE,GR,HU,IE,IT,LV,LT,LU,MT,NL,PL,PT,RO,SK,SI,ES,SE,SA,AE,AU,NZ,CH,MX,AR,CL,CO,PE,QA,KW,BH,OM,JO,EG,MA",
    ),
  CALLS_PER_NUMBER_PER_DAY: z.coerce.number().int().min(0).max(1000).default(3),
  /** Calls one visitor's address may cause a day through the public forms (bookings, demo calls). */
  CALLS_PER_IP_PER_DAY: z.coerce.number().int().min(0).max(10_000).default(5),
  /** Seconds between an empathy call that was not answered and the next attempt. */
  EMPATHY_RETRY_DELAY_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  /**
   * How long a caller may wait for the agent's voice (after the stream starts, and after each of
   * their turns) before the call ends with the apology and does not count. Unset: the bridge's
   * AGENT_SILENCE_MS (8 s). Fractions allowed, for tests.
   */
  AGENT_SILENCE_SECONDS: z.coerce.number().min(0.1).max(60).optional(),
  /** A call counts as delivered once the caller was heard and it lasted this long (twice this if the caller only listened). */
  CALL_DELIVERED_MIN_SECONDS: z.coerce.number().int().min(1).max(600).default(30),
  /**
   * A live call the app has heard nothing about for this long is checked with Twilio at the next
   * minute's sweep (its end may have been lost): a lost end is found within two minutes.
   */
  CALL_QUIET_CHECK_SECONDS: z.coerce.number().int().min(1).max(600).default(45),
  /** While the telephony API keeps failing, a call's dial is retried for this long, then the attempt fails (a paid call is refunded). */
  DIAL_RETRY_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3600).default(300),
  /** The pause between two dial attempts while the telephony API fails. */
  DIAL_RETRY_DELAY_SECONDS: z.coerce.number().int().min(1).max(600).default(10),
  /** Free demo calls per day, all callers together. */
  DEMO_CALLS_PER_DAY: z.coerce.number().int().min(0).default(50),
  /**
   * Whether owners' CalDAV calendars may be on this server's own network (loopback, private and
   * link-local addresses): "refuse" by default, so an address typed into the settings cannot make
   * the server reach what only it can reach; "allow" for a server whose calendars live beside it.
   */
  CALDAV_PRIVATE_ADDRESSES: z.enum(["allow", "refuse"]).default("refuse"),
  RECORD_CALLS: z
    .enum(["true", "false"])
    .default("false")
    .transform((value) => value === "true"),
  /**
   * Whether this process runs the job workers (calls, e-mails, retries, scheduled work). Default
   * true; web processes behind a load balancer may leave them to processes of their own
   * (deploy/systemd/sakina-worker.service). The queue is in the database: each job runs once.
   */
  JOB_WORKERS: z
    .enum(["true", "false"])
    .default("true")
    .transform((value) => value === "true"),
  /** How much the JSON log says (log.server.ts): trace, debug (every request too), info, warn, error, fatal. */
  LOG_LEVEL: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
  /** Under `npm run dev` the log is printed readably; LOG_FORMAT=json keeps it JSON there too. */
  LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
  /**
   * The Prometheus metrics' own listener (GET /metrics), never the public port: unset, none. 0
   * picks a free port (the tests). Every request must carry `Authorization: Bearer METRICS_TOKEN`.
   */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Where the metrics listener listens: this machine only by default. */
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  /** The bearer token Prometheus sends (at least 32 characters, e.g. `openssl rand -hex 32`). */
  METRICS_TOKEN: z.string().min(32, "must be at least 32 characters (e.g. the output of `openssl rand -hex 32`)").optional(),
  /** Default: seed on the embedded database (a try-out), not on a real server. */
  SEED_DEMO_DATA: z
    .enum(["true", "false"])
    .optional()
    .transform((value) => (value === undefined ? undefined : value === "true")),
});

export type Env = z.infer<typeof envSchema>;

const PROXY_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

/**
 * TRUST_PROXY as Express's "trust proxy" setting: false, a hop count, or a list of addresses and
 * CIDR ranges. A string is the reason the value is refused.
 */
export function parseTrustProxy(raw: string): false | number | string[] | string {
  const value = raw.trim().toLowerCase();
  if (value === "false" || value === "0") return false;
  if (value === "true") {
    return 'must not be "true": that believes any client\'s X-Forwarded-For. Set the number of proxies in front of Sakina (e.g. TRUST_PROXY=1) or their addresses (e.g. TRUST_PROXY=10.0.0.0/8,127.0.0.1)';
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return hops <= 10 ? hops : "must be a number of proxy hops from 0 to 10, or a list of proxy addresses";
  }
  const entries = value.split(",").map((entry) => entry.trim());
  const bad = entries.filter((entry) => !PROXY_NAMES.has(entry) && !isAddressOrRange(entry));
  if (bad.length > 0) {
    return `must be a number of proxy hops (e.g. 1) or a comma-separated list of proxy addresses or CIDR ranges (e.g. 10.0.0.0/8,127.0.0.1); not understood: ${bad.join(", ")}`;
  }
  return entries;
}

function isAddressOrRange(entry: string) {
  const [address = "", prefix, ...rest] = entry.split("/");
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d+$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

export class EnvError extends Error {}

/** Rules that tie variables together. */
function deploymentIssues(env: Env): { path: string[]; message: string }[] {
  // With a PostgreSQL server, several processes may serve one site: each must sign and read the
  // same cookies, so a secret generated per process (the try-out's default) would make sessions
  // and forms fail on every other process. The embedded database allows one process only.
  if (env.DATABASE_URL && !env.SESSION_SECRET) {
    return [
      {
        path: ["SESSION_SECRET"],
        message:
          "required with DATABASE_URL: every process serving the site must sign sessions with the same secret (at least 32 characters, e.g. the output of `openssl rand -hex 32`)",
      },
    ];
  }
  if (env.METRICS_PORT !== undefined && !env.METRICS_TOKEN) {
    return [{ path: ["METRICS_TOKEN"], message: "required with METRICS_PORT: the metrics listener answers only requests that carry it" }];
  }
  return [];
}

export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  // An empty value in a .env file means "not set", not "set to the empty string".
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value !== ""));
  const result = envSchema.safeParse(cleaned);
  const issues = result.success ? deploymentIssues(result.data) : result.error.issues;
  if (result.success && issues.length === 0) return result.data;
  const lines = issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
  throw new EnvError(`Invalid environment variables:\n${lines.join("\n")}`);
}

/** What the browser may see. Nothing secret goes here. */
export function publicEnv(env: Env) {
  return {
    STRIPE_PUBLISHABLE_KEY: env.STRIPE_PUBLISHABLE_KEY ?? null,
    STRIPE_JS_URL: env.STRIPE_JS_URL,
  };
}
export type PublicEnv = ReturnType<typeof publicEnv>;
