CREATE TABLE "text_messages" (
	"id" serial PRIMARY KEY NOT NULL,
	"key" text NOT NULL,
	"business_id" integer,
	"purpose" text NOT NULL,
	"to_phone" text NOT NULL,
	"from_phone" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"provider_sid" text,
	"error_code" integer,
	"refusal" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "text_messages_key" UNIQUE("key")
);
--> statement-breakpoint
CREATE TABLE "text_opt_outs" (
	"id" serial PRIMARY KEY NOT NULL,
	"scope" text NOT NULL,
	"business_id" integer,
	"phone" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "text_opt_outs_scope_phone" UNIQUE("scope","phone")
);
--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "reminder_text_for" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "businesses" ADD COLUMN "texts_enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "text_messages" ADD CONSTRAINT "text_messages_business_id_businesses_id_fk" FOREIGN KEY ("business_id") REFERENCES "public"."businesses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "text_opt_outs" ADD CONSTRAINT "text_opt_outs_business_id_businesses_id_fk" FOREIGN KEY ("business_id") REFERENCES "public"."businesses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "text_messages_provider_sid" ON "text_messages" USING btree ("provider_sid");