import path from "node:path";
import type { AppServices } from "~/platform/services.server";

/**
 * What `npm start` says once the server listens: the address it really bound, a URL that opens
 * it, where the data and the e-mails go, and which providers are configured. A handful of lines.
 */
export function startupSummary(services: AppServices, bound: { address: string; port: number }): string[] {
  const { env } = services;
  const everyInterface = bound.address === "::" || bound.address === "0.0.0.0";
  const host = everyInterface ? "localhost" : bound.address.includes(":") ? `[${bound.address}]` : bound.address;
  const url = listeningOrigin(bound);
  const listening = everyInterface
    ? `port ${bound.port} on every interface (HOST=127.0.0.1 for this machine only)`
    : `${host}:${bound.port}`;
  const database =
    services.database.kind === "postgres"
      ? `PostgreSQL at ${postgresLocation(env.DATABASE_URL)}`
      : `PGlite (embedded) in ${path.resolve(env.DATA_DIR, "pglite")}`;
  // The outbox page is a development aid (npm run dev); npm start runs in production, where it does not exist.
  const listed = env.NODE_ENV === "production" ? "" : ` (listed at ${url}/dev/outbox)`;
  const mail = env.SMTP_URL ? `SMTP via ${new URL(env.SMTP_URL).host}` : `written to ${services.outboxDir}${listed}`;
  const configured = (name: string, yes: boolean, variables: string) => `${name}: ${yes ? "configured" : `not configured (${variables})`}`;
  const providers = [
    configured("payments", Boolean(services.payments), "STRIPE_*"),
    configured("phone calls", services.telephony.configured, "TWILIO_*"),
    configured("voice", services.voiceModel.configured, "OPENAI_API_KEY"),
  ].join(" · ");
  return [
    `Sakina is listening on ${listening}`,
    `  Open:      ${url}`,
    `  Database:  ${database}`,
    `  E-mail:    ${mail}`,
    `  Providers: ${providers}`,
    env.APP_URL
      ? `  Links:     e-mails and provider callbacks use APP_URL ${env.APP_URL}`
      : `  Links:     APP_URL is not set, so e-mailed links point to ${url}`,
    ...services.startupNotes.map((line) => `  ${line.replaceAll("{url}", url)}`),
  ];
}

/** The origin that opens the server on `bound` (localhost when it listens on every interface). */
export function listeningOrigin(bound: { address: string; port: number }) {
  const everyInterface = bound.address === "::" || bound.address === "0.0.0.0";
  const host = everyInterface ? "localhost" : bound.address.includes(":") ? `[${bound.address}]` : bound.address;
  return `http://${host}:${bound.port}`;
}

/** Host, port and database name only: never the user or password. */
function postgresLocation(databaseUrl: string | undefined) {
  if (!databaseUrl) return "DATABASE_URL";
  const url = new URL(databaseUrl);
  return `${url.hostname}:${url.port || 5432}${url.pathname}`;
}
