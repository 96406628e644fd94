import path from "node:path";
import type { Env } from "./env.server";
import { openDatabase, type DatabaseHandle, type Db } from "./db.server";
import { startJobQueue, type Jobs } from "./jobs.server";
import { createMailer, type Mailer } from "./providers/email.server";
import { createAppCookies, type AppCookies } from "./cookies.server";
import { loadSessionSecret } from "./secret.server";
import { allJobs } from "./all-jobs.server";
import { EMPATHY_ERASURE_CRON, empathyErasureJob } from "./empathy.server";
import { seedDemoData } from "./seed.server";
import { createStripeClient, type Stripe } from "./providers/payments.server";
import { createTelephony, type Telephony } from "./providers/telephony.server";

/** Everything a loader, action or job needs, created once per process and passed in. */
export interface AppServices {
  env: Env;
  database: DatabaseHandle;
  db: Db;
  jobs: Jobs;
  mailer: Mailer;
  cookies: AppCookies;
  outboxDir: string;
  /** Null when STRIPE_SECRET_KEY is not set: payment actions then say "not configured". */
  stripe: Stripe | null;
  telephony: Telephony;
  /** Signs cookies and capability links (HMAC); never leaves the server. */
  signingSecret: string;
  /** Lines `npm start` prints after "listening" ({url} is replaced by the server's address). */
  startupNotes: string[];
}

export async function createServices(
  env: Env,
  options: { runWorkers?: boolean } = {},
): Promise<AppServices & { close(): Promise<void> }> {
  const dataDir = path.resolve(env.DATA_DIR);
  const database = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: path.join(dataDir, "pglite"),
  });
  const jobs = await startJobQueue(database);
  await jobs.prepare(allJobs);
  const outboxDir = path.join(dataDir, "outbox");
  const mailer = createMailer({ smtpUrl: env.SMTP_URL, from: env.MAIL_FROM, outboxDir });
  const secret = loadSessionSecret(env.SESSION_SECRET, dataDir);
  const services: AppServices = {
    env,
    database,
    db: database.db,
    jobs,
    mailer,
    cookies: createAppCookies(secret, env.NODE_ENV === "production" && isHttps(env.APP_URL)),
    outboxDir,
    stripe: createStripeClient(env),
    telephony: createTelephony(env),
    signingSecret: secret,
    startupNotes: [],
  };
  if (env.SEED_DEMO_DATA ?? !env.DATABASE_URL) {
    const demo = await seedDemoData(database.db, dataDir);
    services.startupNotes.push(
      `Demo booking page: {url}/book/${demo.bookingLink}`,
      demo.password
        ? `Demo owner login: {url}/login  (${demo.email} / ${demo.password})`
        : `Demo owner login: ${demo.email} (password set earlier; use "Forgot password?" to reset it)`,
    );
  }
  if (options.runWorkers ?? true) {
    await jobs.startWorkers(allJobs, services);
    await jobs.schedule(empathyErasureJob, EMPATHY_ERASURE_CRON);
  }
  return {
    ...services,
    async close() {
      await jobs.stop();
      mailer.close();
      await database.close();
    },
  };
}

function isHttps(url: string | undefined) {
  return url?.startsWith("https://") ?? false;
}
