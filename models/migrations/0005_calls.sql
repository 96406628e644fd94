CREATE TYPE "public"."call_purpose" AS ENUM('empathy', 'booking_confirmation', 'demo', 'customer_service', 'test');--> statement-breakpoint
CREATE TYPE "public"."call_status" AS ENUM('queued', 'initiated', 'ringing', 'in-progress', 'completed', 'busy', 'no-answer', 'failed', 'canceled');--> statement-breakpoint
CREATE TABLE "call_opt_outs" (
	"id" serial PRIMARY KEY NOT NULL,
	"business_id" integer NOT NULL,
	"phone" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "call_opt_outs_business_phone" UNIQUE("business_id","phone")
);
--> statement-breakpoint
CREATE TABLE "calls" (
	"id" serial PRIMARY KEY NOT NULL,
	"purpose" "call_purpose" NOT NULL,
	"language" text NOT NULL,
	"voice" text NOT NULL,
	"provider" text DEFAULT 'twilio' NOT NULL,
	"provider_call_id" text,
	"status" "call_status" DEFAULT 'queued' NOT NULL,
	"to_number" text,
	"from_number" text,
	"business_id" integer,
	"booking_id" integer,
	"outcome" text,
	"answered_by" text,
	"attempt" integer DEFAULT 1 NOT NULL,
	"time_limit_seconds" integer NOT NULL,
	"started_at" timestamp with time zone,
	"answered_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"duration_seconds" integer,
	"cost_cents" integer,
	"transcript" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"flagged_for_review" boolean DEFAULT false NOT NULL,
	"flag_reason" text,
	"stream_token_hash" text,
	"stream_token_used_at" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "calls_provider_call_id_unique" UNIQUE("provider_call_id")
);
--> statement-breakpoint
ALTER TABLE "call_opt_outs" ADD CONSTRAINT "call_opt_outs_business_id_businesses_id_fk" FOREIGN KEY ("business_id") REFERENCES "public"."businesses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_business_id_businesses_id_fk" FOREIGN KEY ("business_id") REFERENCES "public"."businesses"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_booking_id_bookings_id_fk" FOREIGN KEY ("booking_id") REFERENCES "public"."bookings"("id") ON DELETE set null ON UPDATE no action;