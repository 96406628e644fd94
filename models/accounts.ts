import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "./db";
import { accounts } from "./schema";

export type Account = typeof accounts.$inferSelect;

export async function findAccountByEmail(db: Db, email: string) {
  const [row] = await db.select().from(accounts).where(eq(accounts.email, email.toLowerCase()));
  return row ?? null;
}

export async function findAccountById(db: Db, id: number) {
  const [row] = await db.select().from(accounts).where(eq(accounts.id, id));
  return row ?? null;
}

/** Sets a new password and bumps the password version (see replaceTemporaryPassword). */
export async function setAccountPassword(db: Db, accountId: number, passwordHash: string, options: { temporary: boolean }) {
  const [row] = await db
    .update(accounts)
    .set({
      passwordHash,
      mustChangePassword: options.temporary,
      sessionVersion: sql`${accounts.sessionVersion} + 1`,
    })
    .where(eq(accounts.id, accountId))
    .returning();
  return row ?? null;
}

export async function recordLogin(db: Db, accountId: number) {
  await db.update(accounts).set({ lastLoginAt: new Date() }).where(eq(accounts.id, accountId));
}

/**
 * Sets a new e-mailed temporary password only if nothing changed since `expectedVersion` was read
 * (no login, no reset in between), so a late job never overwrites a password the owner chose.
 */
export async function replaceTemporaryPassword(db: Db, accountId: number, passwordHash: string, expectedVersion: number) {
  const [row] = await db
    .update(accounts)
    .set({ passwordHash, mustChangePassword: true, sessionVersion: sql`${accounts.sessionVersion} + 1` })
    .where(
      and(
        eq(accounts.id, accountId),
        eq(accounts.sessionVersion, expectedVersion),
        eq(accounts.mustChangePassword, true),
        isNull(accounts.lastLoginAt),
      ),
    )
    .returning();
  return row ?? null;
}
