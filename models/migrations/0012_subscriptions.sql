CREATE TYPE "public"."subscription_status" AS ENUM('incomplete', 'trialing', 'active', 'past_due', 'canceled');--> statement-breakpoint
CREATE TYPE "public"."support_call_status" AS ENUM('queued', 'calling', 'completed', 'not_delivered', 'cancelled');--> statement-breakpoint
ALTER TYPE "public"."call_purpose" ADD VALUE 'support';--> statement-breakpoint
ALTER TYPE "public"."email_token_purpose" ADD VALUE 'sign_in';--> statement-breakpoint
CREATE TABLE "subscribers" (
	"id" serial PRIMARY KEY NOT NULL,
	"full_name" text NOT NULL,
	"email" text NOT NULL,
	"phone" text NOT NULL,
	"call_frequency" text NOT NULL,
	"status" "subscription_status" DEFAULT 'incomplete' NOT NULL,
	"stripe_customer_id" text,
	"stripe_subscription_id" text,
	"card_on_file" boolean DEFAULT false NOT NULL,
	"trial_ends_at" timestamp with time zone,
	"period_start" timestamp with time zone,
	"period_end" timestamp with time zone,
	"cancel_at_period_end" boolean DEFAULT false NOT NULL,
	"billing_updated_at" timestamp with time zone,
	"trial_reminder_sent_at" timestamp with time zone,
	"preferred_language" text DEFAULT 'en' NOT NULL,
	"voice_gender" text DEFAULT 'female' NOT NULL,
	"call_schedule_type" text DEFAULT 'every_two_days' NOT NULL,
	"preferred_call_time" text DEFAULT '14:00' NOT NULL,
	"time_zone" text DEFAULT 'UTC' NOT NULL,
	"call_reminders" boolean DEFAULT true NOT NULL,
	"schedule_anchor" timestamp with time zone DEFAULT now() NOT NULL,
	"next_call_at" timestamp with time zone,
	"reminded_for" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "subscribers_email_unique" UNIQUE("email"),
	CONSTRAINT "subscribers_phone_unique" UNIQUE("phone"),
	CONSTRAINT "subscribers_stripe_customer_id_unique" UNIQUE("stripe_customer_id"),
	CONSTRAINT "subscribers_stripe_subscription_id_unique" UNIQUE("stripe_subscription_id")
);
--> statement-breakpoint
CREATE TABLE "support_calls" (
	"id" serial PRIMARY KEY NOT NULL,
	"subscriber_id" integer NOT NULL,
	"feeling" text,
	"urgency" text DEFAULT 'normal' NOT NULL,
	"source" text DEFAULT 'requested' NOT NULL,
	"status" "support_call_status" DEFAULT 'queued' NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"scheduled_for" timestamp with time zone,
	"summary" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "support_calls_scheduled_once" UNIQUE("subscriber_id","scheduled_for")
);
--> statement-breakpoint
CREATE TABLE "trial_claims" (
	"key_hash" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sessions" ALTER COLUMN "account_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "support_call_id" integer;--> statement-breakpoint
ALTER TABLE "email_tokens" ADD COLUMN "subscriber_id" integer;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "subscriber_id" integer;--> statement-breakpoint
ALTER TABLE "support_calls" ADD CONSTRAINT "support_calls_subscriber_id_subscribers_id_fk" FOREIGN KEY ("subscriber_id") REFERENCES "public"."subscribers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "subscribers_next_call" ON "subscribers" USING btree ("next_call_at");--> statement-breakpoint
CREATE INDEX "support_calls_subscriber" ON "support_calls" USING btree ("subscriber_id","created_at");--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_support_call_id_support_calls_id_fk" FOREIGN KEY ("support_call_id") REFERENCES "public"."support_calls"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_tokens" ADD CONSTRAINT "email_tokens_subscriber_id_subscribers_id_fk" FOREIGN KEY ("subscriber_id") REFERENCES "public"."subscribers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_subscriber_id_subscribers_id_fk" FOREIGN KEY ("subscriber_id") REFERENCES "public"."subscribers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sessions_subscriber" ON "sessions" USING btree ("subscriber_id");--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_one_owner" CHECK (("sessions"."account_id" is null) <> ("sessions"."subscriber_id" is null));