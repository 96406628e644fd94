-- The audit log is append-only in the database itself, not only by the app's code: no UPDATE, DELETE
-- or TRUNCATE. One change is let through: deleting an admin's account sets account_id to null
-- (the foreign key's ON DELETE SET NULL), and the entry keeps the actor's e-mail.
CREATE OR REPLACE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.account_id IS NOT NULL AND NEW.account_id IS NULL
     AND (NEW.id, NEW.actor_email, NEW.action, NEW.target_type, NEW.target_id, NEW.detail::text, NEW.created_at)
         IS NOT DISTINCT FROM (OLD.id, OLD.actor_email, OLD.action, OLD.target_type, OLD.target_id, OLD.detail::text, OLD.created_at) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = '42501';
END
$$;--> statement-breakpoint
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();--> statement-breakpoint
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();
