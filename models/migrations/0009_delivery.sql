ALTER TABLE "calls" ADD COLUMN "stream_connected_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "model_ready_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "model_failed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "agent_heard_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "caller_heard_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "delivered" boolean;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "undelivered_reason" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "dial_failing_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "empathy_requests" ADD COLUMN "refund_reason" text;