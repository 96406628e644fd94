CREATE TABLE "live_leases" (
	"id" serial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"holder" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "live_leases_holder" ON "live_leases" USING btree ("kind","holder");