CREATE TABLE "plan_calls" (
	"call_id" integer PRIMARY KEY NOT NULL,
	"business_id" integer NOT NULL,
	"number" integer NOT NULL,
	"metered" boolean NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "businesses" ADD COLUMN "plan_period_start" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "businesses" ADD COLUMN "plan_period_end" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "businesses" ADD COLUMN "plan_cancel_at_period_end" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "plan_calls" ADD CONSTRAINT "plan_calls_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plan_calls" ADD CONSTRAINT "plan_calls_business_id_businesses_id_fk" FOREIGN KEY ("business_id") REFERENCES "public"."businesses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "plan_calls_business_created" ON "plan_calls" USING btree ("business_id","created_at");