CREATE TYPE "public"."owner_message_kind" AS ENUM('message', 'voicemail');--> statement-breakpoint
CREATE TYPE "public"."receptionist_mode" AS ENUM('off', 'always', 'outside_hours');--> statement-breakpoint
CREATE TABLE "business_numbers" (
	"id" serial PRIMARY KEY NOT NULL,
	"business_id" integer NOT NULL,
	"phone_number" text NOT NULL,
	"provider_sid" text NOT NULL,
	"receptionist_mode" "receptionist_mode" DEFAULT 'always' NOT NULL,
	"transfer_number" text,
	"transfer_within_hours" boolean DEFAULT true NOT NULL,
	"max_concurrent_calls" integer DEFAULT 2 NOT NULL,
	"max_calls_per_caller_per_day" integer DEFAULT 5 NOT NULL,
	"connected_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "business_numbers_phone" UNIQUE("phone_number"),
	CONSTRAINT "business_numbers_provider_sid" UNIQUE("provider_sid"),
	CONSTRAINT "business_numbers_business" UNIQUE("business_id")
);
--> statement-breakpoint
CREATE TABLE "owner_messages" (
	"id" serial PRIMARY KEY NOT NULL,
	"business_id" integer NOT NULL,
	"call_id" integer,
	"kind" "owner_message_kind" NOT NULL,
	"from_number" text,
	"body" text,
	"caller_name" text,
	"recording_sid" text,
	"provider_call_id" text,
	"emailed_at" timestamp with time zone,
	"read_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "owner_messages_recording" UNIQUE("recording_sid")
);
--> statement-breakpoint
ALTER TABLE "business_numbers" ADD CONSTRAINT "business_numbers_business_id_businesses_id_fk" FOREIGN KEY ("business_id") REFERENCES "public"."businesses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "owner_messages" ADD CONSTRAINT "owner_messages_business_id_businesses_id_fk" FOREIGN KEY ("business_id") REFERENCES "public"."businesses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "owner_messages" ADD CONSTRAINT "owner_messages_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "owner_messages_business_created" ON "owner_messages" USING btree ("business_id","created_at");