ALTER TABLE "bookings" ADD COLUMN "manage_token_sealed" text;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "time_set_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "reminder_email_for" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "businesses" ADD COLUMN "reminder_email" boolean DEFAULT true NOT NULL;--> statement-breakpoint
CREATE INDEX "bookings_starts_at" ON "bookings" USING btree ("starts_at");--> statement-breakpoint
-- Bookings made before reminders: their time was set when they were made (a move since is not known).
UPDATE "bookings" SET "time_set_at" = "created_at";
