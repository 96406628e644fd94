ALTER TABLE "bookings" ADD COLUMN "reference" text;--> statement-breakpoint
CREATE UNIQUE INDEX "bookings_business_reference" ON "bookings" USING btree ("business_id","reference");--> statement-breakpoint
CREATE INDEX "bookings_reference" ON "bookings" USING btree ("reference");--> statement-breakpoint
-- Every booking made before gets its reference: six characters of the alphabet without look-alikes
-- (models/booking-reference.ts), drawn from gen_random_uuid()'s cryptographic random bytes (bytes
-- 248-255 are skipped, so each character is uniform), drawn again while the business has it.
DO $$
DECLARE
  alphabet constant text := '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
  pending record;
  candidate text;
  random_bytes bytea;
  byte_at integer;
  drawn integer;
BEGIN
  FOR pending IN SELECT "id", "business_id" FROM "bookings" WHERE "reference" IS NULL ORDER BY "id" LOOP
    LOOP
      candidate := '';
      WHILE length(candidate) < 6 LOOP
        -- Bytes 0-5 and 10-15 of a version 4 UUID are random; 6 and 8 carry the version and variant.
        random_bytes := uuid_send(gen_random_uuid());
        FOREACH byte_at IN ARRAY ARRAY[0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15] LOOP
          drawn := get_byte(random_bytes, byte_at);
          IF drawn < 248 AND length(candidate) < 6 THEN
            candidate := candidate || substr(alphabet, drawn % 31 + 1, 1);
          END IF;
        END LOOP;
      END LOOP;
      EXIT WHEN NOT EXISTS (
        SELECT 1 FROM "bookings" WHERE "business_id" = pending."business_id" AND "reference" = candidate
      );
    END LOOP;
    -- The owner's calendar feed shows the reference: the event changed, so its SEQUENCE moves on.
    UPDATE "bookings" SET "reference" = candidate, "calendar_sequence" = "calendar_sequence" + 1 WHERE "id" = pending."id";
  END LOOP;
END
$$;--> statement-breakpoint
ALTER TABLE "bookings" ALTER COLUMN "reference" SET NOT NULL;
