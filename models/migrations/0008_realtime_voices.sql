-- Confirmation calls speak through the realtime model, which refuses the text-to-speech-only
-- voices fable, onyx and nova: move saved settings (and calls not yet placed) to the nearest
-- voice it accepts, as app/lib/voices.ts maps them.
UPDATE "businesses" SET "confirmation_voice" = CASE "confirmation_voice"
  WHEN 'fable' THEN 'ballad' WHEN 'onyx' THEN 'ash' WHEN 'nova' THEN 'coral' END
WHERE "confirmation_voice" IN ('fable', 'onyx', 'nova');
--> statement-breakpoint
UPDATE "calls" SET "voice" = CASE "voice"
  WHEN 'fable' THEN 'ballad' WHEN 'onyx' THEN 'ash' WHEN 'nova' THEN 'coral' END
WHERE "voice" IN ('fable', 'onyx', 'nova') AND "status" = 'queued';
