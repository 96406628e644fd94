import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "./db";
import { accounts, recoveryCodes, sessions } from "./schema";

/**
 * Creates an admin account whose password nobody knows (the caller passes the hash of a random
 * secret it throws away); the admin chooses one through a single-use link. An existing admin is
 * returned as it is, so the command can send a new link. An owner's address is never promoted.
 */
export async function createAdmin(db: Db, input: { email: string; name: string; unusablePasswordHash: string }) {
  const email = input.email.toLowerCase();
  const [created] = await db
    .insert(accounts)
    .values({ email, name: input.name, role: "admin", passwordHash: input.unusablePasswordHash, mustChangePassword: false })
    .onConflictDoNothing({ target: accounts.email })
    .returning();
  if (created) return { kind: "created" as const, account: created };
  const [existing] = await db.select().from(accounts).where(eq(accounts.email, email));
  if (existing?.role === "admin") return { kind: "exists" as const, account: existing };
  return { kind: "owner" as const };
}

/**
 * Keeps a new, not yet confirmed TOTP secret (enrolment) in place of `replacing` (null: none yet);
 * one already confirmed is never replaced here. Two enrolment pages loaded at once: the first
 * write wins and both read it back.
 */
export async function setPendingTotpSecret(db: Db, accountId: number, secret: string, replacing: string | null) {
  await db
    .update(accounts)
    .set({ totpSecret: secret })
    .where(
      and(
        eq(accounts.id, accountId),
        eq(accounts.role, "admin"),
        isNull(accounts.totpEnabledAt),
        replacing === null ? isNull(accounts.totpSecret) : eq(accounts.totpSecret, replacing),
      ),
    );
}

/**
 * Accepts a TOTP time step once: the update succeeds only if this step is later than the last one
 * accepted, so the same code (or an older one) never signs in twice, even in parallel.
 */
export async function acceptTotpStep(db: Db, accountId: number, step: number) {
  const [row] = await db
    .update(accounts)
    .set({ totpLastStep: step, totpEnabledAt: sql`coalesce(${accounts.totpEnabledAt}, now())` })
    .where(and(eq(accounts.id, accountId), or(isNull(accounts.totpLastStep), lt(accounts.totpLastStep, step))))
    .returning({ id: accounts.id });
  return Boolean(row);
}

/** Replaces the account's recovery codes with these (hashes only). */
export async function replaceRecoveryCodes(db: Db, accountId: number, codeHashes: string[]) {
  await db.delete(recoveryCodes).where(eq(recoveryCodes.accountId, accountId));
  if (codeHashes.length) await db.insert(recoveryCodes).values(codeHashes.map((codeHash) => ({ accountId, codeHash })));
}

/** Uses a recovery code once: true only for the first use of a code of this account. */
export async function consumeRecoveryCode(db: Db, accountId: number, codeHash: string) {
  const [row] = await db
    .update(recoveryCodes)
    .set({ usedAt: new Date() })
    .where(and(eq(recoveryCodes.accountId, accountId), eq(recoveryCodes.codeHash, codeHash), isNull(recoveryCodes.usedAt)))
    .returning({ id: recoveryCodes.id });
  return Boolean(row);
}

export async function countUnusedRecoveryCodes(db: Db, accountId: number) {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.accountId, accountId), isNull(recoveryCodes.usedAt)));
  return row?.count ?? 0;
}

/** Marks this session as having passed the second factor. */
export async function markSecondFactor(db: Db, idHash: string, now = new Date()) {
  await db.update(sessions).set({ secondFactorAt: now }).where(eq(sessions.idHash, idHash));
}

/** Where e-mails for the admins go: every admin account's address. */
export async function listAdminEmails(db: Db) {
  const rows = await db.select({ email: accounts.email }).from(accounts).where(eq(accounts.role, "admin"));
  return rows.map((row) => row.email);
}
