CREATE TYPE "public"."support_ticket_status" AS ENUM('open', 'closed');--> statement-breakpoint
ALTER TYPE "public"."funnel_event_name" ADD VALUE 'call_delivered';--> statement-breakpoint
ALTER TYPE "public"."funnel_event_name" ADD VALUE 'business_signup';--> statement-breakpoint
ALTER TYPE "public"."funnel_event_name" ADD VALUE 'business_verified';--> statement-breakpoint
ALTER TYPE "public"."funnel_event_name" ADD VALUE 'business_activated';--> statement-breakpoint
ALTER TYPE "public"."funnel_event_name" ADD VALUE 'subscription_trial';--> statement-breakpoint
ALTER TYPE "public"."funnel_event_name" ADD VALUE 'subscription_paid';--> statement-breakpoint
CREATE TABLE "audit_log" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer,
	"actor_email" text NOT NULL,
	"action" text NOT NULL,
	"target_type" text,
	"target_id" text,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "plan_calls" (
	"call_id" integer PRIMARY KEY NOT NULL,
	"business_id" integer NOT NULL,
	"number" integer NOT NULL,
	"metered" boolean NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "recovery_codes" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"code_hash" text NOT NULL,
	"used_at" timestamp with time zone,
	CONSTRAINT "recovery_codes_account_code" UNIQUE("account_id","code_hash")
);
--> statement-breakpoint
CREATE TABLE "support_tickets" (
	"id" serial PRIMARY KEY NOT NULL,
	"business_id" integer,
	"account_id" integer,
	"email" text NOT NULL,
	"subject" text NOT NULL,
	"message" text NOT NULL,
	"priority" boolean DEFAULT false NOT NULL,
	"status" "support_ticket_status" DEFAULT 'open' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "totp_secret" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "totp_enabled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "totp_last_step" integer;--> statement-breakpoint
ALTER TABLE "businesses" ADD COLUMN "plan_period_start" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "businesses" ADD COLUMN "plan_period_end" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "businesses" ADD COLUMN "plan_cancel_at_period_end" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "reviewed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "funnel_events" ADD COLUMN "business_id" integer;--> statement-breakpoint
ALTER TABLE "funnel_events" ADD COLUMN "subscriber_id" integer;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "second_factor_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plan_calls" ADD CONSTRAINT "plan_calls_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plan_calls" ADD CONSTRAINT "plan_calls_business_id_businesses_id_fk" FOREIGN KEY ("business_id") REFERENCES "public"."businesses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recovery_codes" ADD CONSTRAINT "recovery_codes_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "support_tickets" ADD CONSTRAINT "support_tickets_business_id_businesses_id_fk" FOREIGN KEY ("business_id") REFERENCES "public"."businesses"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "support_tickets" ADD CONSTRAINT "support_tickets_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_created" ON "audit_log" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "plan_calls_business_created" ON "plan_calls" USING btree ("business_id","created_at");--> statement-breakpoint
CREATE INDEX "support_tickets_status" ON "support_tickets" USING btree ("status","created_at");--> statement-breakpoint
ALTER TABLE "funnel_events" ADD CONSTRAINT "funnel_events_business_id_businesses_id_fk" FOREIGN KEY ("business_id") REFERENCES "public"."businesses"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "funnel_events" ADD CONSTRAINT "funnel_events_subscriber_id_subscribers_id_fk" FOREIGN KEY ("subscriber_id") REFERENCES "public"."subscribers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bookings_business_created" ON "bookings" USING btree ("business_id","created_at");--> statement-breakpoint
CREATE INDEX "calls_business_started" ON "calls" USING btree ("business_id","started_at");