CREATE TYPE "public"."booking_status" AS ENUM('pending', 'confirmed', 'cancelled', 'reschedule_requested', 'unreachable');--> statement-breakpoint
CREATE TABLE "bookings" (
	"id" serial PRIMARY KEY NOT NULL,
	"business_id" integer NOT NULL,
	"service_id" integer NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"customer_name" text NOT NULL,
	"customer_phone" text NOT NULL,
	"customer_email" text,
	"notes" text,
	"language" text DEFAULT 'en' NOT NULL,
	"status" "booking_status" DEFAULT 'pending' NOT NULL,
	"idempotency_key" text,
	"manage_token_hash" text NOT NULL,
	"call_state" text DEFAULT 'queued' NOT NULL,
	"call_outcome" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bookings_idempotency_key_unique" UNIQUE("idempotency_key"),
	CONSTRAINT "bookings_manage_token_hash_unique" UNIQUE("manage_token_hash")
);
--> statement-breakpoint
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_business_id_businesses_id_fk" FOREIGN KEY ("business_id") REFERENCES "public"."businesses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_service_id_business_services_id_fk" FOREIGN KEY ("service_id") REFERENCES "public"."business_services"("id") ON DELETE no action ON UPDATE no action;