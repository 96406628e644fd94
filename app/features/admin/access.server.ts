import { data, type RouterContextProvider } from "react-router";
import type { Account } from "#models/accounts";
import { recordAudit } from "#models/audit-log";
import type { Db } from "#models/db";
import { getSignedIn } from "~/features/auth/index.server";
import { servicesContext } from "~/platform/context";
import { getT, getLocale } from "~/platform/i18n.server";

/**
 * The admin behind this request, or a 404 for everyone else: anonymous visitors, owners,
 * subscribers and admins whose session has not passed the second factor all see a page that
 * does not exist, so the area's addresses reveal nothing. Loaders and actions both call it (a
 * child route's action runs without its parent's loader).
 */
export async function requireAdmin(context: Readonly<RouterContextProvider>, request: Request) {
  const signedIn = await getSignedIn(context, request);
  if (!signedIn || signedIn.account.role !== "admin" || !signedIn.secondFactorPassed) throw data(null, { status: 404 });
  const services = context.get(servicesContext);
  const t = getT(context);
  return { services, t, locale: getLocale(context), admin: signedIn.account };
}

export type AdminRequest = Awaited<ReturnType<typeof requireAdmin>>;

/** Writes what an admin did to the audit log (in the action's transaction when given one). */
export function audit(
  db: Db,
  admin: Account,
  action: string,
  target?: { type: string; id: string | number },
  detail?: Record<string, string | number | boolean | null>,
) {
  return recordAudit(db, {
    accountId: admin.id,
    actorEmail: admin.email,
    action,
    targetType: target?.type,
    targetId: target?.id,
    detail,
  });
}

export { PAGE_SIZE } from "./admin-ui";
