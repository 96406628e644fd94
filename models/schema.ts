import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  real,
  serial,
  smallint,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { newBookingReference } from "./booking-reference";

/** Fixed-window counters shared by every process that uses the same database. */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  windowStartedAt: timestamp("window_started_at", { withTimezone: true }).notNull(),
  hits: integer("hits").notNull(),
});

/**
 * Things held open (a voice session, an event stream), counted per holder so a cap holds across
 * every process on the database. The holder renews its row while it lasts; a row a crashed process
 * left behind stops counting when it expires.
 */
export const liveLeases = pgTable(
  "live_leases",
  {
    id: serial("id").primaryKey(),
    /** What is held, e.g. "voice:address". */
    kind: text("kind").notNull(),
    /** Who holds it: a keyed hash of an address group, a session, a conversation. */
    holder: text("holder").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (table) => [index("live_leases_holder").on(table.kind, table.holder)],
);

export const contactUrgency = pgEnum("contact_urgency", ["low", "normal", "high", "urgent"]);

/** Messages sent through /contact, kept so none is lost if the e-mail provider is down. */
export const contactMessages = pgTable("contact_messages", {
  id: serial("id").primaryKey(),
  email: text("email").notNull(),
  subject: text("subject").notNull(),
  message: text("message").notNull(),
  urgency: contactUrgency("urgency").notNull().default("normal"),
  locale: text("locale").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

export const businessStatus = pgEnum("business_status", ["pending_verification", "payment_required", "active", "suspended"]);
export const planStatus = pgEnum("plan_status", ["none", "starter", "active", "past_due", "canceled"]);

export const businesses = pgTable("businesses", {
  id: serial("id").primaryKey(),
  name: text("name").notNull(),
  /** The public booking page is /book/{bookingLink}. */
  bookingLink: text("booking_link").notNull().unique(),
  industry: text("industry").notNull().default("service"),
  ownerName: text("owner_name").notNull(),
  /** Lower-cased; also the owner's login. */
  email: text("email").notNull().unique(),
  phone: text("phone").notNull(),
  address: text("address"),
  description: text("description"),
  timeZone: text("time_zone").notNull().default("UTC"),
  defaultLanguage: text("default_language").notNull().default("en"),
  status: businessStatus("status").notNull().default("pending_verification"),
  planStatus: planStatus("plan_status").notNull().default("none"),
  starterEndsAt: timestamp("starter_ends_at", { withTimezone: true }),
  stripeCustomerId: text("stripe_customer_id"),
  stripeSubscriptionId: text("stripe_subscription_id"),
  /** The monthly plan's current billing period and whether it ends there, as Stripe last told us. */
  planPeriodStart: timestamp("plan_period_start", { withTimezone: true }),
  planPeriodEnd: timestamp("plan_period_end", { withTimezone: true }),
  planCancelAtPeriodEnd: boolean("plan_cancel_at_period_end").notNull().default(false),
  starterPaymentIntentId: text("starter_payment_intent_id").unique(),
  minimumNoticeMinutes: integer("minimum_notice_minutes").notNull().default(60),
  /** How many days ahead customers may book (the booking page's calendar). */
  bookingWindowDays: integer("booking_window_days").notNull().default(60),
  confirmationVoice: text("confirmation_voice").notNull().default("shimmer"),
  confirmationLanguage: text("confirmation_language").notNull().default("en"),
  /** Voice settings (spec screen 14): the speech locale, speaking speed (0.5-2) and creativity (0.1-1). */
  voiceLocale: text("voice_locale").notNull().default("en-US"),
  voiceSpeed: real("voice_speed").notNull().default(1),
  voiceCreativity: real("voice_creativity").notNull().default(0.8),
  /** ISO codes the confirmation agent may phone; null means the deployment's list. */
  callCountries: text("call_countries").array(),
  /** Customers with an e-mail address are reminded of their appointment a day before (owner settings). */
  reminderEmail: boolean("reminder_email").notNull().default(true),
  /** Hours before an appointment the AI reminder call goes (2, 4, 12 or 24); null: no reminder call (owner settings). */
  reminderCallHours: integer("reminder_call_hours"),
  /** Texts (SMS) to customers: the reminder a day before, and the confirmation of a booking made without an e-mail (owner settings; off by default). */
  textsEnabled: boolean("texts_enabled").notNull().default(false),
  verifiedAt: timestamp("verified_at", { withTimezone: true }),
  activatedAt: timestamp("activated_at", { withTimezone: true }),
  createdAt: timestamp("created_at", { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

export const accountRole = pgEnum("account_role", ["owner", "admin"]);

/** People who sign in: business owners, and admins (created with the CLI). */
export const accounts = pgTable("accounts", {
  id: serial("id").primaryKey(),
  businessId: integer("business_id").references(() => businesses.id, { onDelete: "cascade" }),
  role: accountRole("role").notNull().default("owner"),
  name: text("name").notNull(),
  email: text("email").notNull().unique(),
  passwordHash: text("password_hash").notNull(),
  /** Set while the password is the e-mailed temporary one. */
  mustChangePassword: boolean("must_change_password").notNull().default(true),
  /** Bumped on every password change, so a late job can tell the password changed since it looked. */
  sessionVersion: integer("session_version").notNull().default(1),
  lastLoginAt: timestamp("last_login_at", { withTimezone: true }),
  /** An admin's TOTP secret, sealed (AES-256-GCM, see features/admin/totp.server.ts); set at enrolment, in use once totp_enabled_at is set. */
  totpSecret: text("totp_secret"),
  totpEnabledAt: timestamp("totp_enabled_at", { withTimezone: true }),
  /** The last accepted TOTP time step: a code is never accepted twice. */
  totpLastStep: integer("totp_last_step"),
  createdAt: timestamp("created_at", { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

/** An admin's one-time recovery codes (SHA-256 of each), for a lost authenticator. */
export const recoveryCodes = pgTable(
  "recovery_codes",
  {
    id: serial("id").primaryKey(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
  },
  (table) => [unique("recovery_codes_account_code").on(table.accountId, table.codeHash)],
);

/**
 * What admins did, kept for reading: the app has no path that updates or deletes a row.
 * The admin's e-mail is copied so an entry stays readable if the account goes.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    id: serial("id").primaryKey(),
    accountId: integer("account_id").references(() => accounts.id, { onDelete: "set null" }),
    actorEmail: text("actor_email").notNull(),
    /** e.g. business.suspend, call.reviewed, payment.refund, admin.totp_enrolled. */
    action: text("action").notNull(),
    targetType: text("target_type"),
    targetId: text("target_id"),
    detail: jsonb("detail").$type<Record<string, string | number | boolean | null>>().notNull().default({}),
    createdAt: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [index("audit_log_created").on(table.createdAt)],
);

export const emailTokenPurpose = pgEnum("email_token_purpose", ["verify_email", "reset_password", "sign_in"]);

/** Single-use links sent by e-mail; only a hash of the token is stored. */
export const emailTokens = pgTable("email_tokens", {
  id: serial("id").primaryKey(),
  purpose: emailTokenPurpose("purpose").notNull(),
  email: text("email").notNull(),
  tokenHash: text("token_hash").notNull().unique(),
  businessId: integer("business_id").references(() => businesses.id, { onDelete: "cascade" }),
  accountId: integer("account_id").references(() => accounts.id, { onDelete: "cascade" }),
  subscriberId: integer("subscriber_id").references(() => subscribers.id, { onDelete: "cascade" }),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  usedAt: timestamp("used_at", { withTimezone: true }),
  createdAt: timestamp("created_at", { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

export const paymentPurpose = pgEnum("payment_purpose", ["business_starter", "empathy_call", "subscription"]);

export const subscriptionStatus = pgEnum("subscription_status", ["incomplete", "trialing", "active", "past_due", "canceled"]);

/**
 * Consumers with a subscription (spec: User). One row per person: the phone and the e-mail are
 * unique, and `trial_claims` remembers them after an account is deleted, so one person gets one
 * trial. Billing facts (status, trial end, period) are copied from Stripe's subscription events.
 */
export const subscribers = pgTable(
  "subscribers",
  {
    id: serial("id").primaryKey(),
    fullName: text("full_name").notNull(),
    /** Lower-cased; the magic link goes here. */
    email: text("email").notNull().unique(),
    /** E.164; the scheduled and requested calls ring it. */
    phone: text("phone").notNull().unique(),
    /** weekly, twice_weekly or every_two_days: the plan chosen at signup. */
    callFrequency: text("call_frequency").notNull(),
    status: subscriptionStatus("status").notNull().default("incomplete"),
    stripeCustomerId: text("stripe_customer_id").unique(),
    stripeSubscriptionId: text("stripe_subscription_id").unique(),
    /** The card is on file (the SetupIntent or Checkout succeeded). */
    cardOnFile: boolean("card_on_file").notNull().default(false),
    trialEndsAt: timestamp("trial_ends_at", { withTimezone: true }),
    /** The current billing period (the trial while trialing): the allowance resets when it moves. */
    periodStart: timestamp("period_start", { withTimezone: true }),
    periodEnd: timestamp("period_end", { withTimezone: true }),
    cancelAtPeriodEnd: boolean("cancel_at_period_end").notNull().default(false),
    /** The Stripe event time of the last billing fact applied, so an older event never undoes a newer one. */
    billingUpdatedAt: timestamp("billing_updated_at", { withTimezone: true }),
    trialReminderSentAt: timestamp("trial_reminder_sent_at", { withTimezone: true }),
    // Preferences (spec: User profile).
    preferredLanguage: text("preferred_language").notNull().default("en"),
    voiceGender: text("voice_gender").notNull().default("female"),
    callScheduleType: text("call_schedule_type").notNull().default("every_two_days"),
    preferredCallTime: text("preferred_call_time").notNull().default("14:00"),
    timeZone: text("time_zone").notNull().default("UTC"),
    callReminders: boolean("call_reminders").notNull().default(true),
    /** Where the schedule's calendar starts: signup, or the last change of the schedule. */
    scheduleAnchor: timestamp("schedule_anchor", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    /** The next scheduled call; the minute job places every call that has come due. */
    nextCallAt: timestamp("next_call_at", { withTimezone: true }),
    /** The scheduled call the reminder e-mail was sent for. */
    remindedFor: timestamp("reminded_for", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [index("subscribers_next_call").on(table.nextCallAt)],
);

/** Keyed hashes of every phone and e-mail that has started a trial, kept after the account is deleted. */
export const trialClaims = pgTable("trial_claims", {
  keyHash: text("key_hash").primaryKey(),
  createdAt: timestamp("created_at", { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

export const supportCallStatus = pgEnum("support_call_status", ["queued", "calling", "completed", "not_delivered", "cancelled"]);

/** A subscriber's support call (spec: support call record): requested from the dashboard or scheduled. */
export const supportCalls = pgTable(
  "support_calls",
  {
    id: serial("id").primaryKey(),
    subscriberId: integer("subscriber_id")
      .notNull()
      .references(() => subscribers.id, { onDelete: "cascade" }),
    /** How the subscriber felt when asking (requested calls); null for scheduled ones. */
    feeling: text("feeling"),
    urgency: text("urgency").notNull().default("normal"),
    source: text("source").notNull().default("requested"),
    status: supportCallStatus("status").notNull().default("queued"),
    /** The billing period it belongs to: the allowance counts delivered calls per period and plan. */
    periodStart: timestamp("period_start", { withTimezone: true }).notNull(),
    /** trial or monthly: an upgrade within the trial's first second starts a period at the same instant. */
    plan: text("plan").notNull().default("trial"),
    /** For a scheduled call, the instant it was due: one call per due instant. */
    scheduledFor: timestamp("scheduled_for", { withTimezone: true }),
    summary: text("summary"),
    createdAt: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [
    index("support_calls_subscriber").on(table.subscriberId, table.createdAt),
    unique("support_calls_scheduled_once").on(table.subscriberId, table.scheduledFor),
  ],
);

/** Money that moved, one row per provider payment; the unique id makes every handler idempotent. */
export const payments = pgTable("payments", {
  id: serial("id").primaryKey(),
  purpose: paymentPurpose("purpose").notNull(),
  providerPaymentId: text("provider_payment_id").notNull().unique(),
  amountCents: integer("amount_cents").notNull(),
  currency: text("currency").notNull(),
  status: text("status").notNull(),
  businessId: integer("business_id").references(() => businesses.id, { onDelete: "set null" }),
  refundedAt: timestamp("refunded_at", { withTimezone: true }),
  createdAt: timestamp("created_at", { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

/** What a business offers on its booking page. */
export const businessServices = pgTable("business_services", {
  id: serial("id").primaryKey(),
  businessId: integer("business_id")
    .notNull()
    .references(() => businesses.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  description: text("description"),
  priceCents: integer("price_cents").notNull(),
  currency: text("currency").notNull().default("USD"),
  durationMinutes: integer("duration_minutes").notNull(),
  active: boolean("active").notNull().default(true),
  createdAt: timestamp("created_at", { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

/** Weekly hours; several rows on one weekday leave breaks between them. */
export const openingHours = pgTable(
  "opening_hours",
  {
    id: serial("id").primaryKey(),
    businessId: integer("business_id")
      .notNull()
      .references(() => businesses.id, { onDelete: "cascade" }),
    /** 0 = Sunday … 6 = Saturday. */
    weekday: smallint("weekday").notNull(),
    startMinute: integer("start_minute").notNull(),
    endMinute: integer("end_minute").notNull(),
  },
  (table) => [
    check(
      "opening_hours_valid",
      sql`${table.weekday} between 0 and 6 and ${table.startMinute} >= 0 and ${table.endMinute} <= 1440 and ${table.startMinute} < ${table.endMinute}`,
    ),
  ],
);

export const daysOff = pgTable(
  "days_off",
  {
    id: serial("id").primaryKey(),
    businessId: integer("business_id")
      .notNull()
      .references(() => businesses.id, { onDelete: "cascade" }),
    /** The business's local date. */
    date: date("date", { mode: "string" }).notNull(),
    note: text("note"),
  },
  (table) => [unique("days_off_business_date").on(table.businessId, table.date)],
);

/** Provider webhook events already handled, so a redelivery is acknowledged and not redone. */
export const webhookEvents = pgTable("webhook_events", {
  id: text("id").primaryKey(),
  provider: text("provider").notNull(),
  type: text("type").notNull(),
  receivedAt: timestamp("received_at", { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

/** `no_show`: the appointment's time came and the customer did not (the owner marks it, afterwards). */
export const bookingStatus = pgEnum("booking_status", [
  "pending",
  "confirmed",
  "cancelled",
  "reschedule_requested",
  "unreachable",
  "no_show",
]);

/**
 * Appointments. Two live bookings of one business can never overlap: an exclusion constraint
 * (migration 0004) on (business_id, [starts_at, ends_at)) for every status but cancelled.
 */
export const bookings = pgTable(
  "bookings",
  {
    id: serial("id").primaryKey(),
    businessId: integer("business_id")
      .notNull()
      .references(() => businesses.id, { onDelete: "cascade" }),
    serviceId: integer("service_id")
      .notNull()
      .references(() => businessServices.id),
    startsAt: timestamp("starts_at", { withTimezone: true }).notNull(),
    endsAt: timestamp("ends_at", { withTimezone: true }).notNull(),
    customerName: text("customer_name").notNull(),
    /** E.164. */
    customerPhone: text("customer_phone").notNull(),
    customerEmail: text("customer_email"),
    notes: text("notes"),
    /** The language the customer booked in; the confirmation call and e-mails use it. */
    language: text("language").notNull().default("en"),
    status: bookingStatus("status").notNull().default("pending"),
    /**
     * The retry key of the request that made the booking, keyed to its client (see placeBooking):
     * a resubmission finds the booking it already made (per business).
     */
    idempotencyKey: text("idempotency_key"),
    /**
     * Hash of the request that carried the key (service, time, customer's details, language): a
     * resubmission gets the booking only with the same request; a row without one replays to nobody.
     */
    idempotencyRequestHash: text("idempotency_request_hash"),
    /** Hash of the secret in the customer's manage link. */
    manageTokenHash: text("manage_token_hash").notNull().unique(),
    /**
     * The same secret sealed (see secret.server.ts), for the reminder e-mail's link; null for
     * bookings made before reminders, whose reminder goes without one.
     */
    manageTokenSealed: text("manage_token_sealed"),
    /**
     * The time zone the customer booked in (the booking page's zone, theirs): their e-mails,
     * calendar files and manage page speak it. Null for bookings made before it was kept (and by
     * paths that know no zone): the business's zone then.
     */
    customerTimeZone: text("customer_time_zone"),
    /** The last change of time or status (moved, cancelled, confirmed) and who made it ("owner" or "customer"), for the owner's list. */
    lastChange: text("last_change"),
    lastChangeBy: text("last_change_by"),
    /** When the booking got its current time (made or moved): a reminder is for a time told well before. */
    timeSetAt: timestamp("time_set_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    /** The start time the customer's reminder e-mail was sent for: one reminder per time, whatever retries. */
    reminderEmailFor: timestamp("reminder_email_for", { withTimezone: true }),
    /** The start time the AI reminder call was queued (or skipped) for: one reminder call per time, whatever retries. */
    reminderCallFor: timestamp("reminder_call_for", { withTimezone: true }),
    /** The start time the customer's reminder text was queued for: one reminder text per time, whatever retries. */
    reminderTextFor: timestamp("reminder_text_for", { withTimezone: true }),
    /** Where the AI confirmation call stands, and what came of it. */
    callState: text("call_state").notNull().default("queued"),
    callOutcome: text("call_outcome"),
    /** Why the dialling policy refused to phone the customer; the business can call them itself. */
    notCalledReason: text("not_called_reason"),
    /**
     * Which confirmation of the booking is due: 1 when booked, one more each time it moves (a new
     * time to confirm). A confirmation's calls are keyed by (booking, round, attempt).
     */
    confirmationRound: integer("confirmation_round").notNull().default(1),
    /** Who made the booking: its confirmation calls (after a move too) and reminders count there. */
    origin: jsonb("origin").$type<CallOrigin>(),
    /**
     * The booking's SEQUENCE in the owner's calendar feed (RFC 5545): a trigger adds one whenever
     * what the feed shows changes (time, service, name, status), whichever code path changed it.
     */
    calendarSequence: integer("calendar_sequence").notNull().default(0),
    /**
     * What a caller says to find the booking: six characters without look-alikes (see
     * booking-reference.ts), unique per business. createBooking draws it and draws again on a
     * clash; a row inserted another way gets one drawn the same way.
     */
    reference: text("reference")
      .notNull()
      .$defaultFn(() => newBookingReference()),
    createdAt: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    updatedAt: timestamp("updated_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [
    unique("bookings_business_idempotency_key").on(table.businessId, table.idempotencyKey),
    uniqueIndex("bookings_business_reference").on(table.businessId, table.reference),
    // The customer-service agent looks a reference up across businesses (the caller's phone decides).
    index("bookings_reference").on(table.reference),
    // The owner's analytics read a business's bookings made in a window (models/analytics.ts).
    index("bookings_business_created").on(table.businessId, table.createdAt),
    // The reminders' scan reads the bookings starting within the next day.
    index("bookings_starts_at").on(table.startsAt),
  ],
);

/**
 * Manage links the customer replaced by asking for a new one (the only way a link stops working
 * while its booking exists): by the old secret's hash, so the old link can still say whose booking
 * it was and that a new link went to the customer, in the business's own frame.
 */
export const replacedManageLinks = pgTable("replaced_manage_links", {
  tokenHash: text("token_hash").primaryKey(),
  bookingId: integer("booking_id")
    .notNull()
    .references(() => bookings.id, { onDelete: "cascade" }),
  replacedAt: timestamp("replaced_at", { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

/**
 * The owner's private calendar subscription link (/calendar/<token>.ics), one per business. The
 * token is looked up by its SHA-256 and kept sealed (AES-256-GCM) only so the settings page can
 * show the link again; rotating replaces both, and the old link answers 404 at once.
 */
export const calendarFeeds = pgTable("calendar_feeds", {
  businessId: integer("business_id")
    .primaryKey()
    .references(() => businesses.id, { onDelete: "cascade" }),
  tokenHash: text("token_hash").notNull().unique(),
  tokenSealed: text("token_sealed").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

/**
 * The owner's own CalDAV calendar (issue 47): where it is, who signs in (the password sealed under
 * the signing secret, purpose "caldav"), and how the last sync went, for the settings page.
 */
export const calendarConnections = pgTable("calendar_connections", {
  businessId: integer("business_id")
    .primaryKey()
    .references(() => businesses.id, { onDelete: "cascade" }),
  /** The calendar collection's URL, as found by the PROPFIND on connect. */
  calendarUrl: text("calendar_url").notNull(),
  username: text("username").notNull(),
  passwordSealed: text("password_sealed").notNull(),
  lastSyncAt: timestamp("last_sync_at", { withTimezone: true }),
  lastErrorAt: timestamp("last_error_at", { withTimezone: true }),
  lastError: text("last_error"),
  createdAt: timestamp("created_at", { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

/** Busy times read from the owner's calendar: they block slots as bookings do (replaced at every sync). */
export const calendarBusy = pgTable(
  "calendar_busy",
  {
    id: serial("id").primaryKey(),
    businessId: integer("business_id")
      .notNull()
      .references(() => businesses.id, { onDelete: "cascade" }),
    startsAt: timestamp("starts_at", { withTimezone: true }).notNull(),
    endsAt: timestamp("ends_at", { withTimezone: true }).notNull(),
  },
  (table) => [index("calendar_busy_business_starts").on(table.businessId, table.startsAt)],
);

/** Where each booking's event lives on the owner's calendar, and its ETag there (If-Match on the next write). */
export const calendarEvents = pgTable("calendar_events", {
  bookingId: integer("booking_id")
    .primaryKey()
    .references(() => bookings.id, { onDelete: "cascade" }),
  businessId: integer("business_id")
    .notNull()
    .references(() => businesses.id, { onDelete: "cascade" }),
  href: text("href").notNull(),
  etag: text("etag"),
  updatedAt: timestamp("updated_at", { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

export const empathyStatus = pgEnum("empathy_status", [
  "awaiting_payment",
  "calling",
  "retrying",
  "completed",
  "refunding",
  "refunded",
  /** The refund job used its last retry: an admin refunds by hand (the same Stripe idempotency key). */
  "refund_failed",
]);

/**
 * A $5 anonymous empathy call from its request to its end. The phone number and e-mail are
 * erased 24 hours after the call ends (or after an abandoned request), by a scheduled job.
 */
export const empathyRequests = pgTable("empathy_requests", {
  id: serial("id").primaryKey(),
  /** E.164; null once erased. */
  phone: text("phone"),
  /** For updates about this call only; null once erased. */
  email: text("email"),
  /** A call language code: en, ar, es, fr, de, it. */
  language: text("language").notNull(),
  voiceGender: text("voice_gender").notNull(),
  status: empathyStatus("status").notNull().default("awaiting_payment"),
  paymentIntentId: text("payment_intent_id").unique(),
  checkoutSessionId: text("checkout_session_id").unique(),
  amountCents: integer("amount_cents").notNull(),
  currency: text("currency").notNull(),
  paidAt: timestamp("paid_at", { withTimezone: true }),
  /** When the last call ended or the refund went out: the 24 hours of retention run from here. */
  finishedAt: timestamp("finished_at", { withTimezone: true }),
  refundId: text("refund_id"),
  /** Why the payment went back: not_reached (every attempt missed) or telephony_unavailable. */
  refundReason: text("refund_reason"),
  failureNotifiedAt: timestamp("failure_notified_at", { withTimezone: true }),
  erasedAt: timestamp("erased_at", { withTimezone: true }),
  createdAt: timestamp("created_at", { withTimezone: true })
    .notNull()
    .default(sql`now()`),
  updatedAt: timestamp("updated_at", { withTimezone: true })
    .notNull()
    .default(sql`now()`),
});

export const funnelEventName = pgEnum("funnel_event_name", [
  "proceed_to_payment",
  "payment_success",
  "call_initiated",
  "call_completed",
  "call_delivered",
  "business_signup",
  "business_verified",
  "business_activated",
  "subscription_trial",
  "subscription_paid",
]);

/** First-party product analytics of the funnels (empathy, business, subscription): no phone number, no third-party tag. */
export const funnelEvents = pgTable(
  "funnel_events",
  {
    id: serial("id").primaryKey(),
    name: funnelEventName("name").notNull(),
    empathyRequestId: integer("empathy_request_id").references(() => empathyRequests.id, { onDelete: "set null" }),
    businessId: integer("business_id").references(() => businesses.id, { onDelete: "set null" }),
    subscriberId: integer("subscriber_id").references(() => subscribers.id, { onDelete: "set null" }),
    language: text("language"),
    createdAt: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [
    // A business's or a subscriber's step happens once, even when two deliveries race.
    uniqueIndex("funnel_events_business_once")
      .on(table.name, table.businessId)
      .where(sql`business_id is not null`),
    uniqueIndex("funnel_events_subscriber_once")
      .on(table.name, table.subscriberId)
      .where(sql`subscriber_id is not null`),
  ],
);

/**
 * Who caused a call (see app/calls/gate.server.ts), kept on the call and on a booking so whatever
 * follows from them (a move, a retry, a reminder) counts where the first request counted.
 */
export interface CallOrigin {
  /**
   * visitor: a public request (booking page or API, manage page, demo, call me, the agent's text
   * chat and browser voice; counted against the caller's address); owner: a signed-in owner or
   * admin; subscriber: a signed-in subscriber; payment: a paid call; schedule: a job the app runs on
   * its own.
   */
  kind: "visitor" | "owner" | "subscriber" | "payment" | "schedule";
  /** The keyed hash of the requester's address group (rateLimitKey's), never the address; null without one. */
  address: string | null;
  /** What the request came through (`web-call:12`, `call:7`, `account:3`), for the record. */
  session: string | null;
}

export const callPurpose = pgEnum("call_purpose", [
  "empathy",
  "booking_confirmation",
  "demo",
  "customer_service",
  "test",
  "support",
  "booking_reminder",
  "receptionist",
]);
/** Who dialled: the product (outbound, every purpose but the receptionist) or a caller ringing a business's own number. */
export const callDirection = pgEnum("call_direction", ["outbound", "inbound"]);
export const callStatus = pgEnum("call_status", [
  "queued",
  "initiated",
  "ringing",
  "in-progress",
  "completed",
  "busy",
  "no-answer",
  "failed",
  "canceled",
]);

/** Every phone call the product places, from queueing to its last status. */
export const calls = pgTable(
  "calls",
  {
    id: serial("id").primaryKey(),
    purpose: callPurpose("purpose").notNull(),
    /** Inbound: a caller rang the business's own number (fromNumber is theirs, toNumber the business's). */
    direction: callDirection("direction").notNull().default("outbound"),
    language: text("language").notNull(),
    voice: text("voice").notNull(),
    provider: text("provider").notNull().default("twilio"),
    providerCallId: text("provider_call_id").unique(),
    status: callStatus("status").notNull().default("queued"),
    /** E.164; erased for anonymous empathy calls 24 hours after they end. */
    toNumber: text("to_number"),
    fromNumber: text("from_number"),
    businessId: integer("business_id").references(() => businesses.id, { onDelete: "set null" }),
    bookingId: integer("booking_id").references(() => bookings.id, { onDelete: "set null" }),
    /** The paid empathy request this call is an attempt of; one call per (request, attempt). */
    empathyRequestId: integer("empathy_request_id").references(() => empathyRequests.id, { onDelete: "set null" }),
    /** The subscriber's support call this call places. */
    supportCallId: integer("support_call_id").references(() => supportCalls.id, { onDelete: "set null" }),
    /** Set while a worker is dialling, so a duplicate job for the same call never dials twice. */
    dialClaimedAt: timestamp("dial_claimed_at", { withTimezone: true }),
    /** What the call ended with, in the agent's words: confirmed, cancelled, voicemail, … */
    outcome: text("outcome"),
    /**
     * A booking confirmation call's summary for the owner, written by the agent before its goodbye
     * (its save_summary tool): one or two sentences, redacted like the transcript.
     */
    summary: text("summary"),
    answeredBy: text("answered_by"),
    attempt: integer("attempt").notNull().default(1),
    /**
     * A booking confirmation call's round (the booking's confirmationRound when it was asked for):
     * one call per (booking, round, attempt), however often the jobs that ask for it run.
     */
    confirmationRound: integer("confirmation_round"),
    /**
     * When this call was counted against the number's daily cap: once per call, so re-dials after
     * provider errors are not new calls to the person.
     */
    numberCountedAt: timestamp("number_counted_at", { withTimezone: true }),
    /** Who caused the call; its later attempts keep it (see app/calls/gate.server.ts). Null for calls from before it was kept. */
    origin: jsonb("origin").$type<CallOrigin>(),
    timeLimitSeconds: integer("time_limit_seconds").notNull(),
    startedAt: timestamp("started_at", { withTimezone: true }),
    answeredAt: timestamp("answered_at", { withTimezone: true }),
    endedAt: timestamp("ended_at", { withTimezone: true }),
    durationSeconds: integer("duration_seconds"),
    costCents: integer("cost_cents"),
    /** Redacted transcript: [{ role: "caller" | "agent", text, at }]. */
    transcript: jsonb("transcript").$type<{ role: "caller" | "agent"; text: string; at: string }[]>().notNull().default([]),
    flaggedForReview: boolean("flagged_for_review").notNull().default(false),
    flagReason: text("flag_reason"),
    /** An admin read the flagged call (the review queue lists flagged calls without it). */
    reviewedAt: timestamp("reviewed_at", { withTimezone: true }),
    /** Hash of the single-use token the media stream must present. */
    streamTokenHash: text("stream_token_hash"),
    streamTokenUsedAt: timestamp("stream_token_used_at", { withTimezone: true }),
    lastError: text("last_error"),
    // Delivery: what really happened on the call, so a paid call counts only when the listener
    // spoke with the caller (see app/calls/delivery.ts).
    /** The media stream presented its token and the bridge took it. */
    streamConnectedAt: timestamp("stream_connected_at", { withTimezone: true }),
    /** The realtime model accepted the session (session.updated). */
    modelReadyAt: timestamp("model_ready_at", { withTimezone: true }),
    /** The model refused the session, could not be reached or dropped it: the caller hears an apology. */
    modelFailedAt: timestamp("model_failed_at", { withTimezone: true }),
    /** Twilio echoed the first mark after agent audio: the caller heard the agent. */
    agentHeardAt: timestamp("agent_heard_at", { withTimezone: true }),
    /** The model heard the caller speak. */
    callerHeardAt: timestamp("caller_heard_at", { withTimezone: true }),
    /** Twilio echoed the mark after the delivered minimum (CALL_DELIVERED_MIN_SECONDS) of the agent's audio: the conversation had its minimum. */
    agentMinimumHeardAt: timestamp("agent_minimum_heard_at", { withTimezone: true }),
    /** Our side cut the media stream under a live call (a bridge shutting down, a process that died): the caller did not end it. */
    streamCutAt: timestamp("stream_cut_at", { withTimezone: true }),
    /** After the stream ended, Twilio was given our apology or goodbye to say in the call's language. */
    farewellSaidAt: timestamp("farewell_said_at", { withTimezone: true }),
    /** Set when the call ends: true when delivered, else the reason in undeliveredReason. */
    delivered: boolean("delivered"),
    undeliveredReason: text("undelivered_reason"),
    /** The first of a run of transient provider errors while dialling: the retry window runs from here. */
    dialFailingSince: timestamp("dial_failing_since", { withTimezone: true }),
    /** Set while the call waits for a free line (all MAX_CONCURRENT_CALLS in use); its place is its id. */
    waitingSince: timestamp("waiting_since", { withTimezone: true }),
    /**
     * The lease of the process bridging the call's audio, renewed every few seconds while its
     * media stream is open (app/voice/bridge-leases.server.ts). Past it, nobody bridges the call
     * (its process died): the engine asks the provider and ends it, or hangs it up there.
     */
    bridgeLeaseUntil: timestamp("bridge_lease_until", { withTimezone: true }),
    /** The provider's recording (RECORD_CALLS=true only, dual channel); deleted there and here after 12 months. */
    recordingSid: text("recording_sid"),
    recordingDurationSeconds: integer("recording_duration_seconds"),
    recordedAt: timestamp("recorded_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    updatedAt: timestamp("updated_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [
    unique("calls_empathy_attempt").on(table.empathyRequestId, table.attempt),
    uniqueIndex("calls_booking_round_attempt")
      .on(table.bookingId, table.confirmationRound, table.attempt)
      .where(sql`${table.confirmationRound} is not null`),
    // A business's calls placed in a window: the analytics and the plan's allowance.
    index("calls_business_started").on(table.businessId, table.startedAt),
    // A business's inbound calls from one caller in the last day: the per-caller cap (ADR 0041).
    index("calls_inbound_by_caller")
      .on(table.businessId, table.fromNumber, table.createdAt)
      .where(sql`${table.direction} = 'inbound'`),
    // The first calls to a number still waiting to be dialled: the call gate reads them for every
    // call it queues (the number's daily cap as it will stand); few rows, so the index stays small.
    index("calls_undialled_first_by_number")
      .on(table.toNumber)
      .where(sql`${table.status} = 'queued' and ${table.attempt} = 1 and ${table.numberCountedAt} is null`),
  ],
);

/** How a call's audio ended, as the bridge saw it (ADR 0033). */
export const CALL_ENDINGS = [
  "caller_hung_up",
  "agent_ended",
  "time_limit",
  "dead_air",
  "model_failed",
  "model_idle",
  "stream_lost",
  "error",
] as const;
export type CallEnding = (typeof CALL_ENDINGS)[number];

/** One of the caller's turns: when they stopped speaking (ms after the stream's start) and how long the agent took to answer (null: it never did). */
export interface QualityTurn {
  at: number;
  latencyMs: number | null;
}

/**
 * A tool call the bridge refused (at: ms after the stream's start): `not_offered`, a tool the
 * call's purpose does not have; `other_target`, a tool that acts on the call's own booking asked
 * about another one (a booking, reference or number passed by the model).
 */
export interface ToolRefusal {
  at: number;
  tool: string;
  reason: "not_offered" | "other_target";
}

/**
 * A call's quality as the caller lived it (ADR 0033): one row per answered call. The answer is
 * written when Twilio asks for the answered call's instructions, the first words as soon as the
 * agent's first audio goes out, and the rest (turns, interruptions, the end) once, when the call's
 * audio ends. Times in `turns` and `interruptions` are milliseconds after the stream's start (the
 * bridge's own clock).
 */
export const callQuality = pgTable(
  "call_quality",
  {
    callId: integer("call_id")
      .primaryKey()
      .references(() => calls.id, { onDelete: "cascade" }),
    /** Twilio asked for the answered call's TwiML: the caller picked up. */
    answeredAt: timestamp("answered_at", { withTimezone: true }),
    /** The media stream's "start" reached the bridge. */
    streamStartedAt: timestamp("stream_started_at", { withTimezone: true }),
    /** The agent's first audio was sent to the caller. */
    firstAudioAt: timestamp("first_audio_at", { withTimezone: true }),
    /** From the answer (or the stream's start, if the answer was not seen) to the first audio. */
    firstWordsMs: integer("first_words_ms"),
    turns: jsonb("turns").$type<QualityTurn[]>().notNull().default([]),
    /** The caller spoke over the agent (ms after the stream's start): the agent's audio was cut. */
    interruptions: jsonb("interruptions").$type<number[]>().notNull().default([]),
    endedAt: timestamp("ended_at", { withTimezone: true }),
    endedBy: text("ended_by").$type<CallEnding>(),
    /** Tool calls refused on this call: the model asked for something its call may not do. */
    toolRefusals: jsonb("tool_refusals").$type<ToolRefusal[]>().notNull().default([]),
    updatedAt: timestamp("updated_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  // Per day across businesses (the admin's view): by the answer.
  (table) => [index("call_quality_answered").on(table.answeredAt)],
);

/** "Don't call me again": numbers a business's agent must never phone. */
export const callOptOuts = pgTable(
  "call_opt_outs",
  {
    id: serial("id").primaryKey(),
    businessId: integer("business_id")
      .notNull()
      .references(() => businesses.id, { onDelete: "cascade" }),
    phone: text("phone").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [unique("call_opt_outs_business_phone").on(table.businessId, table.phone)],
);

/**
 * Signed-in sessions, kept on the server so logout, a password change and a reset end them. The
 * cookie holds a random id; only its SHA-256 is stored.
 */
export const sessions = pgTable(
  "sessions",
  {
    idHash: text("id_hash").primaryKey(),
    /** A business owner's or admin's session… */
    accountId: integer("account_id").references(() => accounts.id, { onDelete: "cascade" }),
    /** …or a subscriber's (signed in at signup or with a magic link); exactly one is set. */
    subscriberId: integer("subscriber_id").references(() => subscribers.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    /** When this session passed the admin's second factor (TOTP or a recovery code). */
    secondFactorAt: timestamp("second_factor_at", { withTimezone: true }),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (table) => [
    index("sessions_account").on(table.accountId),
    index("sessions_subscriber").on(table.subscriberId),
    check("sessions_one_owner", sql`(${table.accountId} is null) <> (${table.subscriberId} is null)`),
  ],
);

/**
 * Every number the dialling policy refused to phone, for the admin: which path asked, why, and
 * keyed hashes (never the raw number or address).
 */
/**
 * One confirmation call counted against the business's plan, admitted under a lock on the
 * business's row so two bookings at once never both take the last call of an allowance.
 * `number` is the call's place in its period (the 21st starter call is never admitted).
 */
export const planCalls = pgTable(
  "plan_calls",
  {
    callId: integer("call_id")
      .primaryKey()
      .references(() => calls.id, { onDelete: "cascade" }),
    businessId: integer("business_id")
      .notNull()
      .references(() => businesses.id, { onDelete: "cascade" }),
    number: integer("number").notNull(),
    /** The booking this confirmation call confirms: a booking is counted once, however many attempts it takes. */
    bookingId: integer("booking_id").references(() => bookings.id, { onDelete: "set null" }),
    /** Counted under the monthly plan, so reported to Stripe's meter (starter calls are not). */
    metered: boolean("metered").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [
    index("plan_calls_business_created").on(table.businessId, table.createdAt),
    uniqueIndex("plan_calls_booking").on(table.bookingId),
  ],
);

export const callRefusals = pgTable(
  "call_refusals",
  {
    id: serial("id").primaryKey(),
    /** booking_confirmation, demo, test, empathy, customer_service. */
    path: text("path").notNull(),
    /** country, premium, unroutable, number_cap, ip_cap, opted_out, invalid. */
    reason: text("reason").notNull(),
    country: text("country"),
    numberHash: text("number_hash"),
    ipHash: text("ip_hash"),
    businessId: integer("business_id").references(() => businesses.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [index("call_refusals_created").on(table.createdAt)],
);

export const webCallStatus = pgEnum("web_call_status", ["active", "ended"]);

/**
 * A conversation with the Arabic customer-service agent in the browser (spec: customer call):
 * the caller's name and number, and the messages, kept on the server so the text chat works
 * without JavaScript. Reached only through a signed link.
 */
export const webCalls = pgTable(
  "web_calls",
  {
    id: serial("id").primaryKey(),
    customerName: text("customer_name").notNull(),
    /** E.164. */
    phone: text("phone").notNull(),
    language: text("language").notNull().default("ar-SA"),
    status: webCallStatus("status").notNull().default("active"),
    messages: jsonb("messages").$type<{ role: "user" | "agent"; text: string; at: string }[]>().notNull().default([]),
    flaggedForReview: boolean("flagged_for_review").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    endedAt: timestamp("ended_at", { withTimezone: true }),
  },
  (table) => [index("web_calls_created").on(table.createdAt)],
);

export const supportTicketStatus = pgEnum("support_ticket_status", ["open", "closed"]);

/** A business owner's message to support; paid-plan owners' tickets are priority. */
export const supportTickets = pgTable(
  "support_tickets",
  {
    id: serial("id").primaryKey(),
    businessId: integer("business_id").references(() => businesses.id, { onDelete: "set null" }),
    accountId: integer("account_id").references(() => accounts.id, { onDelete: "set null" }),
    email: text("email").notNull(),
    subject: text("subject").notNull(),
    message: text("message").notNull(),
    priority: boolean("priority").notNull().default(false),
    status: supportTicketStatus("status").notNull().default("open"),
    createdAt: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [index("support_tickets_status").on(table.status, table.createdAt)],
);

// The owner's analytics (/dashboard/analytics), counted ahead: per business and local date, kept
// current by PostgreSQL triggers in the same transaction as every write to bookings, calls and a
// business's time zone (migration 0019_analytics_rollup_triggers; docs/decisions/0015-live-analytics.md).
// Nothing in the application writes these tables: the triggers do, so no write path can forget them.
// `day` is the local date (the business's time zone) the booking was made or the call started.

/** Bookings made on each local date, by their status now. */
export const bookingDayStatuses = pgTable(
  "booking_day_statuses",
  {
    businessId: integer("business_id")
      .notNull()
      .references(() => businesses.id, { onDelete: "cascade" }),
    day: date("day").notNull(),
    status: bookingStatus("status").notNull(),
    bookings: integer("bookings").notNull(),
  },
  (table) => [primaryKey({ columns: [table.businessId, table.day, table.status] })],
);

/** Live (not cancelled) bookings made on each local date, by the ISO weekday (1-7) of the appointment's local start. */
export const bookingDayWeekdays = pgTable(
  "booking_day_weekdays",
  {
    businessId: integer("business_id")
      .notNull()
      .references(() => businesses.id, { onDelete: "cascade" }),
    day: date("day").notNull(),
    weekday: smallint("weekday").notNull(),
    bookings: integer("bookings").notNull(),
  },
  (table) => [primaryKey({ columns: [table.businessId, table.day, table.weekday] })],
);

/** Live (not cancelled) bookings made on each local date, by the local hour (0-23) of the appointment's start. */
export const bookingDayHours = pgTable(
  "booking_day_hours",
  {
    businessId: integer("business_id")
      .notNull()
      .references(() => businesses.id, { onDelete: "cascade" }),
    day: date("day").notNull(),
    hour: smallint("hour").notNull(),
    bookings: integer("bookings").notNull(),
  },
  (table) => [primaryKey({ columns: [table.businessId, table.day, table.hour] })],
);

/** Confirmation calls started on each local date, by result (SQL function `analytics_call_result`), with their seconds. */
export const callDayResults = pgTable(
  "call_day_results",
  {
    businessId: integer("business_id")
      .notNull()
      .references(() => businesses.id, { onDelete: "cascade" }),
    day: date("day").notNull(),
    result: text("result").notNull(),
    calls: integer("calls").notNull(),
    seconds: integer("seconds").notNull(),
  },
  (table) => [primaryKey({ columns: [table.businessId, table.day, table.result] })],
);

/**
 * Every text (SMS) asked for, one row per purpose and key (`key`, unique): the send job inserts it
 * before it asks Twilio, and records Twilio's SID, so a retried job never sends twice. `status`:
 * pending (asked for, not yet sent), sending (the request went out, its answer not yet stored),
 * then Twilio's own (queued, sent, delivered, undelivered, failed), refused (the policy or an
 * opt-out stopped it), or unconfirmed (the worker died while Twilio was asked; never sent again).
 */
export const textMessages = pgTable(
  "text_messages",
  {
    id: serial("id").primaryKey(),
    key: text("key").notNull(),
    businessId: integer("business_id").references(() => businesses.id, { onDelete: "cascade" }),
    purpose: text("purpose").notNull(),
    toPhone: text("to_phone").notNull(),
    fromPhone: text("from_phone"),
    status: text("status").notNull().default("pending"),
    providerSid: text("provider_sid"),
    errorCode: integer("error_code"),
    refusal: text("refusal"),
    createdAt: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    updatedAt: timestamp("updated_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [unique("text_messages_key").on(table.key), index("text_messages_provider_sid").on(table.providerSid)],
);

/**
 * "STOP": numbers that asked for no more texts from a business (`businessId`) or from the platform's
 * own sender (`businessId` null; `scope` "platform"). START removes the row.
 */
export const textOptOuts = pgTable(
  "text_opt_outs",
  {
    id: serial("id").primaryKey(),
    /** "business:<id>" or "platform": one row per scope and number. */
    scope: text("scope").notNull(),
    businessId: integer("business_id").references(() => businesses.id, { onDelete: "cascade" }),
    phone: text("phone").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [unique("text_opt_outs_scope_phone").on(table.scope, table.phone)],
);

/** When the AI receptionist answers a business's number: never, always, or outside its opening hours. */
export const receptionistMode = pgEnum("receptionist_mode", ["off", "always", "outside_hours"]);

/**
 * A phone number the business connected (a number of the platform's Twilio account, listed through
 * IncomingPhoneNumbers; Sakina sets its voice and messaging URLs). A number belongs to one business
 * and a business has at most one; calls to it are answered by the receptionist as its settings say.
 */
export const businessNumbers = pgTable(
  "business_numbers",
  {
    id: serial("id").primaryKey(),
    businessId: integer("business_id")
      .notNull()
      .references(() => businesses.id, { onDelete: "cascade" }),
    /** E.164, as the provider reports it in an inbound call's `To`. */
    phoneNumber: text("phone_number").notNull(),
    /** The provider's IncomingPhoneNumber SID (PN…). */
    providerSid: text("provider_sid").notNull(),
    receptionistMode: receptionistMode("receptionist_mode").notNull().default("always"),
    /** The owner's phone (E.164) a caller who asks for a person is put through to; null: messages only. */
    transferNumber: text("transfer_number"),
    /** Transfers only inside the business's opening hours; outside them the receptionist takes a message. */
    transferWithinHours: boolean("transfer_within_hours").notNull().default(true),
    /** At most this many inbound calls at once for the business (inside MAX_CONCURRENT_CALLS); past it, the voicemail. */
    maxConcurrentCalls: integer("max_concurrent_calls").notNull().default(2),
    /** At most this many inbound calls a day from one caller's number; past it, the voicemail. */
    maxCallsPerCallerPerDay: integer("max_calls_per_caller_per_day").notNull().default(5),
    connectedAt: timestamp("connected_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
    updatedAt: timestamp("updated_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [
    unique("business_numbers_phone").on(table.phoneNumber),
    unique("business_numbers_provider_sid").on(table.providerSid),
    unique("business_numbers_business").on(table.businessId),
  ],
);

export const ownerMessageKind = pgEnum("owner_message_kind", ["message", "voicemail"]);

/**
 * A message for the owner from an inbound call: one the receptionist took down when the caller
 * wanted a person, or a voicemail (with its provider transcription) when every line was busy or
 * the plan's calls were used up. The owner is e-mailed once per message (`emailedAt`).
 */
export const ownerMessages = pgTable(
  "owner_messages",
  {
    id: serial("id").primaryKey(),
    businessId: integer("business_id")
      .notNull()
      .references(() => businesses.id, { onDelete: "cascade" }),
    callId: integer("call_id").references(() => calls.id, { onDelete: "set null" }),
    kind: ownerMessageKind("kind").notNull(),
    /** The caller's number (E.164), as the provider gave it. */
    fromNumber: text("from_number"),
    /** The message as taken down, or the voicemail's transcription (redacted like transcripts); null until transcribed. */
    body: text("body"),
    /** The caller's name, if they gave it. */
    callerName: text("caller_name"),
    /** The voicemail's recording at the provider (RE…), and the provider's voicemail call SID (CA…). */
    recordingSid: text("recording_sid"),
    providerCallId: text("provider_call_id"),
    emailedAt: timestamp("emailed_at", { withTimezone: true }),
    readAt: timestamp("read_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true })
      .notNull()
      .default(sql`now()`),
  },
  (table) => [
    index("owner_messages_business_created").on(table.businessId, table.createdAt),
    unique("owner_messages_recording").on(table.recordingSid),
  ],
);
