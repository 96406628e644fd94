CREATE TABLE "call_refusals" (
	"id" serial PRIMARY KEY NOT NULL,
	"path" text NOT NULL,
	"reason" text NOT NULL,
	"country" text,
	"number_hash" text,
	"ip_hash" text,
	"business_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id_hash" text PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "bookings" DROP CONSTRAINT "bookings_idempotency_key_unique";--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "not_called_reason" text;--> statement-breakpoint
ALTER TABLE "businesses" ADD COLUMN "call_countries" text[];--> statement-breakpoint
ALTER TABLE "call_refusals" ADD CONSTRAINT "call_refusals_business_id_businesses_id_fk" FOREIGN KEY ("business_id") REFERENCES "public"."businesses"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "call_refusals_created" ON "call_refusals" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "sessions_account" ON "sessions" USING btree ("account_id");--> statement-breakpoint
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_business_idempotency_key" UNIQUE("business_id","idempotency_key");