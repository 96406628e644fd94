CREATE TYPE "public"."web_call_status" AS ENUM('active', 'ended');--> statement-breakpoint
CREATE TABLE "web_calls" (
	"id" serial PRIMARY KEY NOT NULL,
	"customer_name" text NOT NULL,
	"phone" text NOT NULL,
	"language" text DEFAULT 'ar-SA' NOT NULL,
	"status" "web_call_status" DEFAULT 'active' NOT NULL,
	"messages" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"flagged_for_review" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "web_calls_created" ON "web_calls" USING btree ("created_at");