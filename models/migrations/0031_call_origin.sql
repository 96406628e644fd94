ALTER TABLE "bookings" ADD COLUMN "origin" jsonb;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "origin" jsonb;