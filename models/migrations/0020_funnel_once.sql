-- Two deliveries that raced may have written a step twice: keep the first.
DELETE FROM "funnel_events" later USING "funnel_events" earlier
  WHERE later.name = earlier.name AND later.id > earlier.id
    AND ((later.business_id IS NOT NULL AND later.business_id = earlier.business_id)
      OR (later.subscriber_id IS NOT NULL AND later.subscriber_id = earlier.subscriber_id));--> statement-breakpoint
CREATE UNIQUE INDEX "funnel_events_business_once" ON "funnel_events" USING btree ("name","business_id") WHERE business_id is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "funnel_events_subscriber_once" ON "funnel_events" USING btree ("name","subscriber_id") WHERE subscriber_id is not null;