CREATE TYPE "public"."call_direction" AS ENUM('outbound', 'inbound');--> statement-breakpoint
ALTER TYPE "public"."call_purpose" ADD VALUE 'receptionist';--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "direction" "call_direction" DEFAULT 'outbound' NOT NULL;--> statement-breakpoint
CREATE INDEX "calls_inbound_by_caller" ON "calls" USING btree ("business_id","from_number","created_at") WHERE "calls"."direction" = 'inbound';