-- No double booking, guaranteed by the database: two live bookings of one business cannot
-- overlap in time. Cancelled bookings free their slot. btree_gist lets GiST index the integer.
CREATE EXTENSION IF NOT EXISTS btree_gist;
--> statement-breakpoint
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_no_overlap"
  EXCLUDE USING gist ("business_id" WITH =, tstzrange("starts_at", "ends_at", '[)') WITH &&)
  WHERE ("status" <> 'cancelled');
--> statement-breakpoint
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_valid_range" CHECK ("ends_at" > "starts_at");
--> statement-breakpoint
CREATE INDEX "bookings_business_starts" ON "bookings" ("business_id", "starts_at");
