import { desc, sql } from "drizzle-orm";
import type { Db } from "./db";
import { auditLog } from "./schema";

export type AuditEntry = typeof auditLog.$inferSelect;

/**
 * Writes one entry. This module offers only writing and reading, and the database refuses any
 * change or removal of an entry (migration 0021_audit_append_only). Pass the action's transaction so the entry and the change commit together.
 */
export async function recordAudit(
  db: Db,
  input: {
    accountId: number | null;
    actorEmail: string;
    action: string;
    targetType?: string;
    targetId?: string | number;
    detail?: AuditEntry["detail"];
  },
) {
  await db.insert(auditLog).values({
    accountId: input.accountId,
    actorEmail: input.actorEmail,
    action: input.action,
    targetType: input.targetType ?? null,
    targetId: input.targetId === undefined ? null : String(input.targetId),
    detail: input.detail ?? {},
  });
}

/** The newest entries first, a page at a time. */
export async function listAudit(db: Db, page: { limit: number; offset: number }) {
  const [rows, [total]] = await Promise.all([
    db.select().from(auditLog).orderBy(desc(auditLog.createdAt), desc(auditLog.id)).limit(page.limit).offset(page.offset),
    db.select({ count: sql<number>`count(*)::int` }).from(auditLog),
  ]);
  return { rows, total: total?.count ?? 0 };
}
