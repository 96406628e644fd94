-- The owner's analytics roll-up (tables in 0018; docs/decisions/0015-live-analytics.md): triggers
-- keep it current in the same transaction as every write, whatever the write path. Nothing here
-- names the booking status 'no_show' (0017): a value added to an enum cannot be used in the
-- transaction that added it, and the migrator runs every pending migration in one transaction.
-- Each bucket is the local date (the business's time zone) the booking was made or the call started.

-- What came of one confirmation call, as the owner reads it: the only definition (models/analytics.ts
-- reads it for the rows at the edges of a period). What the customer said on the call wins over how
-- the call ended; a machine, then an answer without a decision, then no answer at all.
CREATE FUNCTION analytics_call_result(outcome text, answered_by text, status call_status) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN outcome = 'confirmed' THEN 'confirmed'
    WHEN outcome = 'cancelled' THEN 'cancelled'
    WHEN outcome LIKE 'reschedule requested%' THEN 'reschedule'
    WHEN outcome = 'do not call' THEN 'do_not_call'
    WHEN outcome = 'voicemail' OR answered_by LIKE 'machine%' OR answered_by = 'fax' THEN 'voicemail'
    WHEN status IN ('queued', 'initiated', 'ringing', 'in-progress') THEN 'in_progress'
    WHEN status = 'completed' THEN 'no_decision'
    ELSE 'not_reached'
  END
$$;
--> statement-breakpoint

-- Adds `deltas` (+1 a booking counted, -1 one taken back) to each business's figures. The keys
-- are written in order, so two transactions moving counts both ways never wait for each other in
-- a cycle; a key whose changes cancel out (a reschedule within the same hour) is not touched. A
-- business being deleted is no longer found, and its rows go with it (foreign keys, cascade).
CREATE FUNCTION analytics_apply_bookings(business_ids integer[], made timestamptz[], starts timestamptz[], statuses booking_status[], deltas integer[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO booking_day_statuses AS r (business_id, day, status, bookings)
    SELECT c.business_id, (c.made AT TIME ZONE b.time_zone)::date, c.status, sum(c.delta)
    FROM unnest(business_ids, made, starts, statuses, deltas) AS c(business_id, made, starts, status, delta)
    JOIN businesses b ON b.id = c.business_id
    GROUP BY 1, 2, 3 HAVING sum(c.delta) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (business_id, day, status) DO UPDATE SET bookings = r.bookings + excluded.bookings;

  INSERT INTO booking_day_weekdays AS r (business_id, day, weekday, bookings)
    SELECT c.business_id, (c.made AT TIME ZONE b.time_zone)::date, extract(isodow FROM c.starts AT TIME ZONE b.time_zone)::smallint, sum(c.delta)
    FROM unnest(business_ids, made, starts, statuses, deltas) AS c(business_id, made, starts, status, delta)
    JOIN businesses b ON b.id = c.business_id
    WHERE c.status <> 'cancelled'
    GROUP BY 1, 2, 3 HAVING sum(c.delta) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (business_id, day, weekday) DO UPDATE SET bookings = r.bookings + excluded.bookings;

  INSERT INTO booking_day_hours AS r (business_id, day, hour, bookings)
    SELECT c.business_id, (c.made AT TIME ZONE b.time_zone)::date, extract(hour FROM c.starts AT TIME ZONE b.time_zone)::smallint, sum(c.delta)
    FROM unnest(business_ids, made, starts, statuses, deltas) AS c(business_id, made, starts, status, delta)
    JOIN businesses b ON b.id = c.business_id
    WHERE c.status <> 'cancelled'
    GROUP BY 1, 2, 3 HAVING sum(c.delta) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (business_id, day, hour) DO UPDATE SET bookings = r.bookings + excluded.bookings;
END
$$;
--> statement-breakpoint

-- The same for calls: only confirmation calls that started count, by result, with their seconds.
CREATE FUNCTION analytics_apply_calls(business_ids integer[], purposes call_purpose[], started timestamptz[], results text[], seconds integer[], deltas integer[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO call_day_results AS r (business_id, day, result, calls, seconds)
    SELECT c.business_id, (c.started AT TIME ZONE b.time_zone)::date, c.result, sum(c.delta), sum(c.delta * coalesce(c.seconds, 0))
    FROM unnest(business_ids, purposes, started, results, seconds, deltas) AS c(business_id, purpose, started, result, seconds, delta)
    JOIN businesses b ON b.id = c.business_id
    WHERE c.purpose = 'booking_confirmation' AND c.started IS NOT NULL
    GROUP BY 1, 2, 3 HAVING sum(c.delta) <> 0 OR sum(c.delta * coalesce(c.seconds, 0)) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (business_id, day, result) DO UPDATE SET calls = r.calls + excluded.calls, seconds = r.seconds + excluded.seconds;
END
$$;
--> statement-breakpoint

-- Counts one business again from its bookings and calls: the backfill, and a new time zone.
CREATE FUNCTION analytics_rebuild(for_business integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM booking_day_statuses WHERE business_id = for_business;
  DELETE FROM booking_day_weekdays WHERE business_id = for_business;
  DELETE FROM booking_day_hours WHERE business_id = for_business;
  DELETE FROM call_day_results WHERE business_id = for_business;
  PERFORM analytics_apply_bookings(array_agg(k.business_id), array_agg(k.created_at), array_agg(k.starts_at), array_agg(k.status), array_agg(1))
  FROM bookings k WHERE k.business_id = for_business;
  PERFORM analytics_apply_calls(array_agg(c.business_id), array_agg(c.purpose), array_agg(c.started_at),
    array_agg(analytics_call_result(c.outcome, c.answered_by, c.status)), array_agg(c.duration_seconds), array_agg(1))
  FROM calls c WHERE c.business_id = for_business AND c.purpose = 'booking_confirmation' AND c.started_at IS NOT NULL;
END
$$;
--> statement-breakpoint

-- Inserts and deletes are counted a statement at a time (a bulk insert is one pass); an update a
-- row at a time, and only when what is counted changed (not the call state, notes, transcript, …).
CREATE FUNCTION analytics_bookings_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM analytics_apply_bookings(array_agg(n.business_id), array_agg(n.created_at), array_agg(n.starts_at), array_agg(n.status), array_agg(1))
  FROM analytics_new n;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION analytics_bookings_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM analytics_apply_bookings(array_agg(o.business_id), array_agg(o.created_at), array_agg(o.starts_at), array_agg(o.status), array_agg(-1))
  FROM analytics_old o;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION analytics_booking_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM analytics_apply_bookings(ARRAY[OLD.business_id, NEW.business_id], ARRAY[OLD.created_at, NEW.created_at],
    ARRAY[OLD.starts_at, NEW.starts_at], ARRAY[OLD.status, NEW.status], ARRAY[-1, 1]);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION analytics_calls_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM analytics_apply_calls(array_agg(n.business_id), array_agg(n.purpose), array_agg(n.started_at),
    array_agg(analytics_call_result(n.outcome, n.answered_by, n.status)), array_agg(n.duration_seconds), array_agg(1))
  FROM analytics_new n;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION analytics_calls_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM analytics_apply_calls(array_agg(o.business_id), array_agg(o.purpose), array_agg(o.started_at),
    array_agg(analytics_call_result(o.outcome, o.answered_by, o.status)), array_agg(o.duration_seconds), array_agg(-1))
  FROM analytics_old o;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION analytics_call_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM analytics_apply_calls(ARRAY[OLD.business_id, NEW.business_id], ARRAY[OLD.purpose, NEW.purpose], ARRAY[OLD.started_at, NEW.started_at],
    ARRAY[analytics_call_result(OLD.outcome, OLD.answered_by, OLD.status), analytics_call_result(NEW.outcome, NEW.answered_by, NEW.status)],
    ARRAY[OLD.duration_seconds, NEW.duration_seconds], ARRAY[-1, 1]);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION analytics_time_zone_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM analytics_rebuild(NEW.id);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER bookings_analytics_insert AFTER INSERT ON bookings
  REFERENCING NEW TABLE AS analytics_new FOR EACH STATEMENT EXECUTE FUNCTION analytics_bookings_inserted();
--> statement-breakpoint
CREATE TRIGGER bookings_analytics_delete AFTER DELETE ON bookings
  REFERENCING OLD TABLE AS analytics_old FOR EACH STATEMENT EXECUTE FUNCTION analytics_bookings_deleted();
--> statement-breakpoint
CREATE TRIGGER bookings_analytics_update AFTER UPDATE ON bookings FOR EACH ROW
  WHEN ((OLD.business_id, OLD.created_at, OLD.starts_at, OLD.status) IS DISTINCT FROM (NEW.business_id, NEW.created_at, NEW.starts_at, NEW.status))
  EXECUTE FUNCTION analytics_booking_updated();
--> statement-breakpoint
CREATE TRIGGER calls_analytics_insert AFTER INSERT ON calls
  REFERENCING NEW TABLE AS analytics_new FOR EACH STATEMENT EXECUTE FUNCTION analytics_calls_inserted();
--> statement-breakpoint
CREATE TRIGGER calls_analytics_delete AFTER DELETE ON calls
  REFERENCING OLD TABLE AS analytics_old FOR EACH STATEMENT EXECUTE FUNCTION analytics_calls_deleted();
--> statement-breakpoint
CREATE TRIGGER calls_analytics_update AFTER UPDATE ON calls FOR EACH ROW
  WHEN ((OLD.business_id, OLD.purpose, OLD.started_at, OLD.status, OLD.outcome, OLD.answered_by, OLD.duration_seconds)
    IS DISTINCT FROM (NEW.business_id, NEW.purpose, NEW.started_at, NEW.status, NEW.outcome, NEW.answered_by, NEW.duration_seconds))
  EXECUTE FUNCTION analytics_call_updated();
--> statement-breakpoint
CREATE TRIGGER businesses_analytics_time_zone AFTER UPDATE OF time_zone ON businesses FOR EACH ROW
  WHEN (OLD.time_zone IS DISTINCT FROM NEW.time_zone)
  EXECUTE FUNCTION analytics_time_zone_changed();
--> statement-breakpoint

-- The backfill, once the triggers hold the tables (creating them locked out concurrent writes).
SELECT analytics_rebuild(id) FROM businesses;
