CREATE TABLE "calendar_feeds" (
	"business_id" integer PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"token_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "calendar_feeds_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "calendar_sequence" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "calendar_feeds" ADD CONSTRAINT "calendar_feeds_business_id_businesses_id_fk" FOREIGN KEY ("business_id") REFERENCES "public"."businesses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- A booking's SEQUENCE in the owner's calendar feed (RFC 5545 3.8.7.4) grows by one whenever what
-- the feed shows of it changes, whichever path changed it (the owner, the customer's manage page,
-- a confirmation call, an agent): calendars then replace the event they hold.
CREATE FUNCTION bookings_next_calendar_sequence() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.calendar_sequence := OLD.calendar_sequence + 1;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER bookings_calendar_sequence BEFORE UPDATE ON "bookings" FOR EACH ROW
WHEN (
  OLD.starts_at IS DISTINCT FROM NEW.starts_at
  OR OLD.ends_at IS DISTINCT FROM NEW.ends_at
  OR OLD.status IS DISTINCT FROM NEW.status
  OR OLD.service_id IS DISTINCT FROM NEW.service_id
  OR OLD.customer_name IS DISTINCT FROM NEW.customer_name
)
EXECUTE FUNCTION bookings_next_calendar_sequence();
