CREATE TABLE "booking_day_hours" (
	"business_id" integer NOT NULL,
	"day" date NOT NULL,
	"hour" smallint NOT NULL,
	"bookings" integer NOT NULL,
	CONSTRAINT "booking_day_hours_business_id_day_hour_pk" PRIMARY KEY("business_id","day","hour")
);
--> statement-breakpoint
CREATE TABLE "booking_day_statuses" (
	"business_id" integer NOT NULL,
	"day" date NOT NULL,
	"status" "booking_status" NOT NULL,
	"bookings" integer NOT NULL,
	CONSTRAINT "booking_day_statuses_business_id_day_status_pk" PRIMARY KEY("business_id","day","status")
);
--> statement-breakpoint
CREATE TABLE "booking_day_weekdays" (
	"business_id" integer NOT NULL,
	"day" date NOT NULL,
	"weekday" smallint NOT NULL,
	"bookings" integer NOT NULL,
	CONSTRAINT "booking_day_weekdays_business_id_day_weekday_pk" PRIMARY KEY("business_id","day","weekday")
);
--> statement-breakpoint
CREATE TABLE "call_day_results" (
	"business_id" integer NOT NULL,
	"day" date NOT NULL,
	"result" text NOT NULL,
	"calls" integer NOT NULL,
	"seconds" integer NOT NULL,
	CONSTRAINT "call_day_results_business_id_day_result_pk" PRIMARY KEY("business_id","day","result")
);
--> statement-breakpoint
ALTER TABLE "booking_day_hours" ADD CONSTRAINT "booking_day_hours_business_id_businesses_id_fk" FOREIGN KEY ("business_id") REFERENCES "public"."businesses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "booking_day_statuses" ADD CONSTRAINT "booking_day_statuses_business_id_businesses_id_fk" FOREIGN KEY ("business_id") REFERENCES "public"."businesses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "booking_day_weekdays" ADD CONSTRAINT "booking_day_weekdays_business_id_businesses_id_fk" FOREIGN KEY ("business_id") REFERENCES "public"."businesses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "call_day_results" ADD CONSTRAINT "call_day_results_business_id_businesses_id_fk" FOREIGN KEY ("business_id") REFERENCES "public"."businesses"("id") ON DELETE cascade ON UPDATE no action;