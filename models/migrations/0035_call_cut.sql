ALTER TABLE "calls" ADD COLUMN "agent_minimum_heard_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "stream_cut_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "farewell_said_at" timestamp with time zone;