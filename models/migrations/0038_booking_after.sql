CREATE TABLE "replaced_manage_links" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"booking_id" integer NOT NULL,
	"replaced_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "customer_time_zone" text;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "last_change" text;--> statement-breakpoint
ALTER TABLE "bookings" ADD COLUMN "last_change_by" text;--> statement-breakpoint
ALTER TABLE "replaced_manage_links" ADD CONSTRAINT "replaced_manage_links_booking_id_bookings_id_fk" FOREIGN KEY ("booking_id") REFERENCES "public"."bookings"("id") ON DELETE cascade ON UPDATE no action;