-- E-mail jobs are now sealed in the queue and erased once sent (app/platform/jobs.server.ts).
-- Those the previous version finished still hold the whole message in plain text (live sign-in,
-- reset and booking links) until pg-boss deletes them a day later: their data goes now. Jobs
-- still waiting are sent as they are and erased then. On a new database pg-boss's tables do not
-- exist yet (the queue creates them after the migrations).
DO $$
BEGIN
  IF to_regclass('pgboss.job') IS NOT NULL THEN
    UPDATE pgboss.job SET data = NULL WHERE name = 'email-send' AND state IN ('completed', 'failed', 'cancelled');
  END IF;
  IF to_regclass('pgboss.archive') IS NOT NULL THEN
    UPDATE pgboss.archive SET data = NULL WHERE name = 'email-send';
  END IF;
END
$$;
