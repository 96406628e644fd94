import type { AppServices } from "~/platform/services.server";

export interface JobSummary {
  name: string;
  lastRunAt: Date | null;
  lastState: string | null;
  completed24h: number;
  failed24h: number;
  lastFailureAt: Date | null;
  lastFailure: string | null;
}

/**
 * The job queue's own record (pg-boss keeps finished jobs in pgboss.job for about a day): per
 * kind of job, the last run, what it ended with, the runs and failures of the last 24 hours and
 * the newest failure's message.
 */
export async function summarizeJobs(services: AppServices) {
  const { rows } = await services.database.executeSql(`
    with runs as (
      select name, state, started_on, completed_on, output from pgboss.job
    ),
    ranked as (
      select *, row_number() over (partition by name order by coalesce(completed_on, started_on) desc nulls last) as rn,
             row_number() over (partition by name, state = 'failed' order by completed_on desc nulls last) as frn
      from runs where started_on is not null
    )
    select name,
      max(coalesce(completed_on, started_on)) as last_run_at,
      max(case when rn = 1 then state::text end) as last_state,
      count(*) filter (where state = 'completed' and completed_on > now() - interval '24 hours')::int as completed_24h,
      count(*) filter (where state = 'failed' and completed_on > now() - interval '24 hours')::int as failed_24h,
      max(case when state = 'failed' and frn = 1 then completed_on end) as last_failure_at,
      max(case when state = 'failed' and frn = 1 then left(output::text, 300) end) as last_failure
    from ranked group by name order by name`);
  const schedules = await services.database.executeSql("select name, cron from pgboss.schedule order by name");
  return {
    jobs: (rows as Record<string, unknown>[]).map((row): JobSummary => ({
      name: String(row.name),
      lastRunAt: row.last_run_at ? new Date(row.last_run_at as string) : null,
      lastState: (row.last_state as string | null) ?? null,
      completed24h: Number(row.completed_24h ?? 0),
      failed24h: Number(row.failed_24h ?? 0),
      lastFailureAt: row.last_failure_at ? new Date(row.last_failure_at as string) : null,
      lastFailure: (row.last_failure as string | null) ?? null,
    })),
    schedules: (schedules.rows as { name: string; cron: string }[]).map((row) => ({ name: row.name, cron: row.cron })),
  };
}
