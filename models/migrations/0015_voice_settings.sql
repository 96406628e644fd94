ALTER TABLE "businesses" ADD COLUMN "voice_locale" text DEFAULT 'en-US' NOT NULL;--> statement-breakpoint
ALTER TABLE "businesses" ADD COLUMN "voice_speed" real DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "businesses" ADD COLUMN "voice_creativity" real DEFAULT 0.8 NOT NULL;