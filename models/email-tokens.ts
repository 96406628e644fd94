import { createHash, randomBytes } from "node:crypto";
import { and, eq, gt, isNotNull, isNull } from "drizzle-orm";
import type { Db } from "./db";
import { emailTokens } from "./schema";

type Purpose = (typeof emailTokens.$inferSelect)["purpose"];

const hash = (token: string) => createHash("sha256").update(token).digest("hex");

/** Creates a single-use token; only its hash is stored, so a database leak reveals no links. */
export async function createEmailToken(
  db: Db,
  input: { purpose: Purpose; email: string; businessId?: number; accountId?: number; subscriberId?: number; ttlMinutes: number },
) {
  const token = randomBytes(32).toString("base64url");
  await db.insert(emailTokens).values({
    purpose: input.purpose,
    email: input.email.toLowerCase(),
    tokenHash: hash(token),
    businessId: input.businessId,
    accountId: input.accountId,
    subscriberId: input.subscriberId,
    expiresAt: new Date(Date.now() + input.ttlMinutes * 60_000),
  });
  return token;
}

/**
 * Ends every unused token of this purpose for this account or subscriber: a newer link replaces
 * them, and a password once set or a sign-in once made leaves no older link working.
 */
export async function revokeEmailTokens(db: Db, purpose: Purpose, owner: { accountId: number } | { subscriberId: number }) {
  const ownedBy = "accountId" in owner ? eq(emailTokens.accountId, owner.accountId) : eq(emailTokens.subscriberId, owner.subscriberId);
  await db
    .update(emailTokens)
    .set({ usedAt: new Date() })
    .where(and(eq(emailTokens.purpose, purpose), ownedBy, isNull(emailTokens.usedAt)));
}

/**
 * Marks the token used and returns its row, in one statement, so two clicks on the same link
 * cannot both succeed. Expired, used or unknown tokens, or a different e-mail, give null.
 */
export async function consumeEmailToken(db: Db, purpose: Purpose, token: string, email: string) {
  const [row] = await db
    .update(emailTokens)
    .set({ usedAt: new Date() })
    .where(
      and(
        eq(emailTokens.tokenHash, hash(token)),
        eq(emailTokens.purpose, purpose),
        eq(emailTokens.email, email.toLowerCase()),
        isNull(emailTokens.usedAt),
        gt(emailTokens.expiresAt, new Date()),
      ),
    )
    .returning();
  return row ?? null;
}

/** Whether a token would be accepted, without using it (to show the reset form). */
export async function peekEmailToken(db: Db, purpose: Purpose, token: string, email: string) {
  const [row] = await db
    .select()
    .from(emailTokens)
    .where(
      and(
        eq(emailTokens.tokenHash, hash(token)),
        eq(emailTokens.purpose, purpose),
        eq(emailTokens.email, email.toLowerCase()),
        isNull(emailTokens.usedAt),
        gt(emailTokens.expiresAt, new Date()),
      ),
    );
  return row ?? null;
}

/** A token that was already used, for this e-mail: a link opened a second time. */
export async function findUsedEmailToken(db: Db, purpose: Purpose, token: string, email: string) {
  const [row] = await db
    .select()
    .from(emailTokens)
    .where(
      and(
        eq(emailTokens.tokenHash, hash(token)),
        eq(emailTokens.purpose, purpose),
        eq(emailTokens.email, email.toLowerCase()),
        isNotNull(emailTokens.usedAt),
      ),
    );
  return row ?? null;
}
