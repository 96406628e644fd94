import { log } from "~/platform/observability/log.server";
import { eraseExpiredEmpathyContacts } from "#models/empathy";
import { purgeExpiredLeases } from "#models/live-leases";
import { purgeExpiredRateLimits } from "#models/rate-limits";
import { purgeSpentTokensAndSessions } from "#models/retention";
import { forgetRecording, recordingsMadeBefore } from "#models/calls";
import { deleteWebCallsBefore } from "#models/web-calls";
import type { AppJob, AppServices } from "~/platform/services.server";

/** Every ten minutes, so nothing outlives its promise by more than that. */
export const RETENTION_CRON = "*/10 * * * *";
/** Call recordings are kept for twelve months. */
const RECORDING_KEEP_MS = 365 * 24 * 3_600_000;

/** Longer than the longest rate-limit window (a day), so no live window is dropped. */
const RATE_LIMIT_KEEP_MS = 2 * 24 * 3_600_000;

/**
 * What the privacy page promises, done on a schedule: anonymous callers' phone numbers and
 * e-mail addresses erased 24 hours after the call, expired rate-limit windows and leases (left by
 * a process that ended without releasing them), spent or expired
 * e-mail tokens and expired sessions deleted. Each step is idempotent: a second run finds nothing.
 * Then the planner's statistics are refreshed where no autovacuum does it (PGlite).
 */
export async function runRetention(services: Pick<AppServices, "db" | "database" | "telephony">, now = new Date()) {
  const erased = await eraseExpiredEmpathyContacts(services.db, now);
  await purgeExpiredRateLimits(services.db, new Date(now.getTime() - RATE_LIMIT_KEEP_MS));
  await purgeExpiredLeases(services.db);
  const purged = await purgeSpentTokensAndSessions(services.db, now);
  const webCalls = await deleteWebCallsBefore(services.db, new Date(now.getTime() - 24 * 3_600_000));
  // Recordings older than twelve months: deleted at the provider first, then forgotten here.
  let recordingsDeleted = 0;
  for (const recording of await recordingsMadeBefore(services.db, new Date(now.getTime() - RECORDING_KEEP_MS))) {
    await services.telephony.deleteRecording(recording.recordingSid!);
    await forgetRecording(services.db, recording.id);
    recordingsDeleted += 1;
  }
  // After the deletes, so the planner sees what is left (PGlite has no autovacuum to do it).
  await services.database.refreshStatistics();
  return { erased, ...purged, webCalls, recordingsDeleted };
}

export const retentionJob: AppJob<Record<string, never>> = {
  name: "retention",
  retryLimit: 3,
  retryDelaySeconds: 60,
  async handle(_data, services) {
    try {
      await runRetention(services);
    } catch (error) {
      log.error(`retention job failed (it runs again in ten minutes): ${(error as Error).message}`);
      throw error;
    }
  },
};
