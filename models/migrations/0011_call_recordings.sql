ALTER TABLE "calls" ADD COLUMN "recording_sid" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "recording_duration_seconds" integer;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "recorded_at" timestamp with time zone;