ALTER TABLE "bookings" ADD COLUMN "idempotency_request_hash" text;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "origin" jsonb;--> statement-breakpoint
ALTER TABLE "call_quality" ADD COLUMN "tool_refusals" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "origin" jsonb;