ALTER TYPE "public"."call_purpose" ADD VALUE 'booking_reminder';--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "reminder_call_for" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "businesses" ADD COLUMN "reminder_call_hours" integer;