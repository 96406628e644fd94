import { isNotNull, lt, or } from "drizzle-orm";
import type { Db } from "./db";
import { emailTokens, sessions } from "./schema";

/**
 * E-mail tokens that can no longer be used (spent, or past their expiry) and sessions past their
 * expiry: nothing they hold is needed any more. Running it again deletes nothing.
 */
export async function purgeSpentTokensAndSessions(db: Db, now = new Date()) {
  const tokens = await db
    .delete(emailTokens)
    .where(or(isNotNull(emailTokens.usedAt), lt(emailTokens.expiresAt, now)))
    .returning({ id: emailTokens.id });
  const expiredSessions = await db.delete(sessions).where(lt(sessions.expiresAt, now)).returning({ id: sessions.idHash });
  return { emailTokens: tokens.length, sessions: expiredSessions.length };
}
