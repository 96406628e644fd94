import { and, desc, eq, isNull } from "drizzle-orm";
import type { TFunction } from "i18next";
import { findBusinessById, type Business } from "#models/businesses";
import type { Db } from "#models/db";
import { ownerMessages } from "#models/schema";
import { ownerMessageEmail } from "#emails/receptionist";
import { formatWhen } from "~/lib/when";
import { sendEmailJob } from "~/platform/data/email-jobs.server";
import { formatPhone } from "~/platform/phone.server";
import { translatorFor } from "~/platform/i18n.server";
import type { AppJob, AppServices } from "~/platform/services.server";
import { redact } from "~/voice/crisis.server";

export type OwnerMessage = typeof ownerMessages.$inferSelect;

/** What a message's text may hold: one paragraph of plain text, redacted like a transcript. */
const clean = (value: string | null | undefined, max: number) => {
  const text = (value ?? "").replace(/\s+/g, " ").trim().slice(0, max);
  return text ? text : null;
};

/** The owner's e-mail for one message, queued in `tx` with the write that made it due. */
async function queueOwnerEmail(services: AppServices, tx: Db, business: Business, message: OwnerMessage) {
  const t = await translatorFor(business.defaultLanguage);
  await services.jobs.enqueue(
    sendEmailJob,
    ownerMessageEmail(t, business.defaultLanguage, business.email, {
      kind: message.kind,
      businessName: business.name,
      fromNumber: message.fromNumber,
      callerName: message.callerName,
      body: message.body,
      recordingSid: message.recordingSid,
      callsUrl: `${services.publicOrigin()}/dashboard/calls#messages`,
    }),
    { tx },
  );
}

/**
 * A message the receptionist took down for the owner (the caller wanted a person): stored, and
 * the owner's e-mail queued with it, once (emailedAt is set in the same transaction).
 */
export async function takeOwnerMessage(
  services: AppServices,
  input: { business: Business; callId: number; fromNumber: string | null; callerName: string | null; body: string },
) {
  return services.db.transaction(async (tx) => {
    const [message] = await tx
      .insert(ownerMessages)
      .values({
        businessId: input.business.id,
        callId: input.callId,
        kind: "message",
        fromNumber: input.fromNumber,
        callerName: clean(input.callerName, 120),
        body: clean(redact(input.body), 1000),
        emailedAt: new Date(),
      })
      .returning();
    await queueOwnerEmail(services, tx, input.business, message!);
    return message!;
  });
}

/** A voicemail's recording ended (the <Record> action): kept once per recording, its text to come. */
export async function recordVoicemail(
  services: AppServices,
  input: { business: Business; fromNumber: string | null; providerCallId: string; recordingSid: string },
) {
  await services.db.transaction(async (tx) => {
    const [made] = await tx
      .insert(ownerMessages)
      .values({
        businessId: input.business.id,
        kind: "voicemail",
        fromNumber: input.fromNumber,
        providerCallId: input.providerCallId,
        recordingSid: input.recordingSid,
      })
      .onConflictDoNothing()
      .returning({ id: ownerMessages.id });
    if (made) {
      await services.jobs.enqueue(
        voicemailEmailJob,
        { businessId: input.business.id, recordingSid: input.recordingSid },
        { tx, startAfter: new Date(Date.now() + TRANSCRIPTION_WAIT_SECONDS * 1000) },
      );
    }
  });
}

/** How long a voicemail waits for its transcription before the owner is e-mailed without it. */
export const TRANSCRIPTION_WAIT_SECONDS = 600;

/**
 * A voicemail whose transcription callback never came (lost on the way, the provider's trouble):
 * the owner is e-mailed without its text, once, TRANSCRIPTION_WAIT_SECONDS after the recording;
 * a transcription that came meanwhile has e-mailed them already, and this finds nothing to claim.
 */
export const voicemailEmailJob: AppJob<{ businessId: number; recordingSid: string }> = {
  name: "receptionist-voicemail-email",
  retryLimit: 5,
  retryDelaySeconds: 60,
  async handle({ businessId, recordingSid }, services) {
    const business = await findBusinessById(services.db, businessId);
    if (!business) return;
    await services.db.transaction(async (tx) => {
      const [claimed] = await tx
        .update(ownerMessages)
        .set({ emailedAt: new Date() })
        .where(and(eq(ownerMessages.recordingSid, recordingSid), eq(ownerMessages.businessId, businessId), isNull(ownerMessages.emailedAt)))
        .returning();
      if (claimed) await queueOwnerEmail(services, tx, business, claimed);
    });
  },
};

/**
 * The provider's transcription of a voicemail (or its failure: `text` null): written on the
 * voicemail, and the owner e-mailed once, however often the callback comes. A transcription that
 * comes before the recording's own report makes the voicemail itself.
 */
export async function voicemailTranscribed(
  services: AppServices,
  input: { business: Business; fromNumber: string | null; providerCallId: string; recordingSid: string; text: string | null },
) {
  await recordVoicemail(services, input);
  await services.db.transaction(async (tx) => {
    const [claimed] = await tx
      .update(ownerMessages)
      .set({ body: clean(input.text ? redact(input.text) : null, 2000), emailedAt: new Date() })
      .where(
        and(
          eq(ownerMessages.recordingSid, input.recordingSid),
          eq(ownerMessages.businessId, input.business.id),
          isNull(ownerMessages.emailedAt),
        ),
      )
      .returning();
    if (claimed) await queueOwnerEmail(services, tx, input.business, claimed);
  });
}

/** The business's latest messages and voicemails, newest first. */
export function listOwnerMessages(db: Db, businessId: number, limit = 25) {
  return db
    .select()
    .from(ownerMessages)
    .where(eq(ownerMessages.businessId, businessId))
    .orderBy(desc(ownerMessages.createdAt))
    .limit(limit);
}

/** The owner's list of messages and voicemails, each text ready to print in the owner's language and zone. */
export async function loadOwnerMessages(services: AppServices, t: TFunction, locale: string, business: Business) {
  const rows = await listOwnerMessages(services.db, business.id);
  return rows.map((row) => ({
    id: row.id,
    when: formatWhen(row.createdAt, business.timeZone, locale),
    kind: t(`receptionist.kind.${row.kind}`),
    from: row.fromNumber ? formatPhone(row.fromNumber) : null,
    callerName: row.callerName,
    body: row.body ?? (row.kind === "voicemail" && !row.emailedAt ? t("receptionist.transcribing") : null),
    callId: row.callId,
  }));
}

export type OwnerMessagesView = Awaited<ReturnType<typeof loadOwnerMessages>>;
