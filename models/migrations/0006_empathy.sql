CREATE TYPE "public"."empathy_status" AS ENUM('awaiting_payment', 'calling', 'retrying', 'completed', 'refunding', 'refunded');--> statement-breakpoint
CREATE TYPE "public"."funnel_event_name" AS ENUM('proceed_to_payment', 'payment_success', 'call_initiated', 'call_completed');--> statement-breakpoint
CREATE TABLE "empathy_requests" (
	"id" serial PRIMARY KEY NOT NULL,
	"phone" text,
	"email" text,
	"language" text NOT NULL,
	"voice_gender" text NOT NULL,
	"status" "empathy_status" DEFAULT 'awaiting_payment' NOT NULL,
	"payment_intent_id" text,
	"checkout_session_id" text,
	"amount_cents" integer NOT NULL,
	"currency" text NOT NULL,
	"paid_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"refund_id" text,
	"failure_notified_at" timestamp with time zone,
	"erased_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "empathy_requests_payment_intent_id_unique" UNIQUE("payment_intent_id"),
	CONSTRAINT "empathy_requests_checkout_session_id_unique" UNIQUE("checkout_session_id")
);
--> statement-breakpoint
CREATE TABLE "funnel_events" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" "funnel_event_name" NOT NULL,
	"empathy_request_id" integer,
	"language" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "empathy_request_id" integer;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "dial_claimed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "funnel_events" ADD CONSTRAINT "funnel_events_empathy_request_id_empathy_requests_id_fk" FOREIGN KEY ("empathy_request_id") REFERENCES "public"."empathy_requests"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_empathy_request_id_empathy_requests_id_fk" FOREIGN KEY ("empathy_request_id") REFERENCES "public"."empathy_requests"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_empathy_attempt" UNIQUE("empathy_request_id","attempt");