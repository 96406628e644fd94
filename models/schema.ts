import { sql } from "drizzle-orm";
import { integer, pgEnum, pgTable, serial, text, timestamp } from "drizzle-orm/pg-core";

/** Fixed-window counters shared by every process that uses the same database. */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  windowStartedAt: timestamp("window_started_at", { withTimezone: true }).notNull(),
  hits: integer("hits").notNull(),
});

export const contactUrgency = pgEnum("contact_urgency", ["low", "normal", "high", "urgent"]);

/** Messages sent through /contact, kept so none is lost if the e-mail provider is down. */
export const contactMessages = pgTable("contact_messages", {
  id: serial("id").primaryKey(),
  email: text("email").notNull(),
  subject: text("subject").notNull(),
  message: text("message").notNull(),
  urgency: contactUrgency("urgency").notNull().default("normal"),
  locale: text("locale").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().default(sql`now()`),
});
