ALTER TABLE "bookings" ADD COLUMN "confirmation_round" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "confirmation_round" integer;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "number_counted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "plan_calls" ADD COLUMN "booking_id" integer;--> statement-breakpoint
ALTER TABLE "plan_calls" ADD CONSTRAINT "plan_calls_booking_id_bookings_id_fk" FOREIGN KEY ("booking_id") REFERENCES "public"."bookings"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "calls_booking_round_attempt" ON "calls" USING btree ("booking_id","confirmation_round","attempt") WHERE "calls"."confirmation_round" is not null;--> statement-breakpoint
-- Bookings already counted keep their first counted call as their one count (later attempts stay counted as before).
UPDATE "plan_calls" SET "booking_id" = "first"."booking_id"
FROM (
  SELECT DISTINCT ON ("calls"."booking_id") "plan_calls"."call_id", "calls"."booking_id"
  FROM "plan_calls" JOIN "calls" ON "calls"."id" = "plan_calls"."call_id"
  WHERE "calls"."booking_id" IS NOT NULL
  ORDER BY "calls"."booking_id", "plan_calls"."call_id"
) AS "first"
WHERE "plan_calls"."call_id" = "first"."call_id";--> statement-breakpoint
CREATE UNIQUE INDEX "plan_calls_booking" ON "plan_calls" USING btree ("booking_id");