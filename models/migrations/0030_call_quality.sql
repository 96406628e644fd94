CREATE TABLE "call_quality" (
	"call_id" integer PRIMARY KEY NOT NULL,
	"answered_at" timestamp with time zone,
	"stream_started_at" timestamp with time zone,
	"first_audio_at" timestamp with time zone,
	"first_words_ms" integer,
	"turns" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"interruptions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"ended_at" timestamp with time zone,
	"ended_by" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "call_quality" ADD CONSTRAINT "call_quality_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "call_quality_answered" ON "call_quality" USING btree ("answered_at");