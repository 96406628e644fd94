import path from "node:path";
import type { Env } from "~/platform/env.server";
import { openDatabase } from "~/platform/db.server";
import { startJobQueue } from "~/platform/data/jobs.server";
import { createMailer } from "~/providers/email.server";
import { createAppCookies } from "~/platform/http/cookies.server";
import { loadSessionSecret } from "~/platform/security/secret.server";
import { createReadCache } from "~/platform/data/read-cache.server";
import { allJobs } from "./all-jobs.server";
import { EMPATHY_REFUND_SWEEP_CRON, empathyErasureJob, empathyRefundSweepJob } from "~/features/empathy/empathy.server";
import { RETENTION_CRON, retentionJob } from "~/features/retention/retention.server";
import { CALL_SWEEPER_CRON, callSweeperJob, startLeaseWatch } from "~/calls/engine.server";
import { SCHEDULED_CALLS_CRON, scheduledCallsJob } from "~/features/subscriptions/index.server";
import { callPurposes } from "./call-purposes.server";
import { REMINDERS_CRON, bookingRemindersJob } from "~/features/booking/reminders.server";
import { CALENDAR_SYNC_CRON, calendarSyncJob } from "~/features/booking/calendar-sync.server";
import { BOOKING_CONFIRMATION_SWEEP_CRON, bookingConfirmationSweepJob } from "~/features/booking/confirmation-sweep.server";
import { seedDemoData } from "~/features/business/demo-seed.server";
import { createBilling } from "~/providers/billing.server";
import { createPayments } from "~/providers/payments.server";
import { createTelephony } from "~/providers/telephony.server";
import { createMessaging } from "~/providers/messaging.server";
import { createPhoneNumbers } from "~/providers/phone-numbers.server";
import { createVoiceModel } from "~/providers/voice-model.server";
import { createSpeech, createTextModel } from "~/providers/ai.server";
import type { AppServices } from "~/platform/services.server";

/** How long another process's write may take to show in this one's cached reads. */
const READ_CACHE_TTL_MS = 5_000;

export async function createServices(env: Env, options: { runWorkers?: boolean } = {}): Promise<AppServices & { close(): Promise<void> }> {
  const dataDir = path.resolve(env.DATA_DIR);
  const database = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: path.join(dataDir, "pglite"),
  });
  const secret = loadSessionSecret(env.SESSION_SECRET, dataDir);
  // The queue's schema and queues are created by whichever process starts first; two at once deadlock.
  const jobs = await database.exclusively("sakina:job-queue", async () => {
    const queue = await startJobQueue(database, { signingSecret: secret });
    await queue.prepare(allJobs);
    return queue;
  });
  const outboxDir = path.join(dataDir, "outbox");
  const mailer = createMailer({ smtpUrl: env.SMTP_URL, from: env.MAIL_FROM, outboxDir });
  // Until server.js has listened, the configured port on this machine is the best guess.
  let listeningOrigin = `http://localhost:${env.PORT}`;
  const configuredOrigin = env.APP_URL ? new URL(env.APP_URL).origin : null;
  const services: AppServices = {
    env,
    database,
    db: database.db,
    jobs,
    mailer,
    cookies: createAppCookies(secret, env.NODE_ENV === "production" && isHttps(env.APP_URL)),
    outboxDir,
    payments: createPayments(env),
    billing: createBilling(env),
    callPurposes,
    telephony: createTelephony(env),
    messaging: createMessaging(env),
    phoneNumbers: createPhoneNumbers(env),
    voiceModel: createVoiceModel(env),
    textModel: createTextModel(env),
    speech: createSpeech(env),
    signingSecret: secret,
    readCache: createReadCache({ ttlMs: READ_CACHE_TTL_MS }),
    startupNotes: [],
    publicOrigin: () => configuredOrigin ?? listeningOrigin,
    setListeningOrigin(origin) {
      listeningOrigin = origin;
    },
  };
  if (env.SEED_DEMO_DATA ?? !env.DATABASE_URL) {
    const demo = await database.exclusively("sakina:demo-seed", () => seedDemoData(database.db, dataDir));
    services.startupNotes.push(
      `Demo booking page: {url}/book/${demo.bookingLink}`,
      demo.password
        ? `Demo owner login: {url}/login  (${demo.email} / ${demo.password})`
        : `Demo owner login: ${demo.email} (password set earlier; use "Forgot password?" to reset it)`,
    );
  }
  let stopLeaseWatch = async () => {};
  if (options.runWorkers ?? env.JOB_WORKERS) {
    await jobs.startWorkers(allJobs, services);
    // The privacy page's promises, kept on a schedule (stored by pg-boss, so one run per slot
    // across processes); the retention job replaces the older erasure-only schedule.
    await jobs.boss.unschedule(empathyErasureJob.name).catch(() => {});
    await jobs.schedule(retentionJob, RETENTION_CRON);
    // Bookings whose confirmation-call job was lost (a crash after their commit) get one.
    await jobs.schedule(bookingConfirmationSweepJob, BOOKING_CONFIRMATION_SWEEP_CRON);
    // Refunds whose job gave up are surfaced to the caller and the admins.
    await jobs.schedule(empathyRefundSweepJob, EMPATHY_REFUND_SWEEP_CRON);
    // Calls whose end was never reported are ended, and waiting calls get the lines they free.
    await jobs.schedule(callSweeperJob, CALL_SWEEPER_CRON);
    // Calls whose bridge died are looked for more often than that: their lines are needed.
    stopLeaseWatch = startLeaseWatch(services);
    // Subscribers' scheduled calls, their reminders and the trial-ending e-mails.
    await jobs.schedule(scheduledCallsJob, SCHEDULED_CALLS_CRON);
    // Customers' appointment reminders.
    await jobs.schedule(bookingRemindersJob, REMINDERS_CRON);
    // The owners' own calendars (CalDAV): their busy times read again.
    await jobs.schedule(calendarSyncJob, CALENDAR_SYNC_CRON);
  }
  return {
    ...services,
    async close() {
      await stopLeaseWatch();
      await jobs.stop();
      mailer.close();
      await database.close();
    },
  };
}

function isHttps(url: string | undefined) {
  return url?.startsWith("https://") ?? false;
}
