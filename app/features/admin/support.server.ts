import { listAdminEmails } from "#models/admin";
import { createSupportTicket } from "#models/admin-lists";
import { supportTicketEmail } from "#emails/admin";
import type { RouterContextProvider } from "react-router";
import type { Owner } from "~/features/business/index.server";
import { sendEmailJob } from "~/platform/data/email-jobs.server";
import { firstExceededRule } from "~/platform/security/rate-limit.server";

/** Each ticket e-mails every admin, so a business may open only this many an hour. */
export const SUPPORT_TICKETS_PER_OWNER_PER_HOUR = 5;

/** Owners on the paid monthly plan are answered first. */
export const isPriority = (owner: Owner) => owner.business.planStatus === "active";

/** Counts a ticket against the business's hourly allowance (in the database); the refusal says how long to wait. */
export function supportTicketAllowance(context: Readonly<RouterContextProvider>, owner: Owner) {
  return firstExceededRule(context, [
    { name: "support:business", subject: String(owner.business.id), limit: SUPPORT_TICKETS_PER_OWNER_PER_HOUR, windowSeconds: 3600 },
  ]);
}

/**
 * Keeps the owner's ticket and tells every admin by e-mail; the ticket and the e-mail jobs
 * commit together, so no ticket goes unannounced and no e-mail announces a ticket that is not there.
 */
export async function openSupportTicket(owner: Owner, input: { subject: string; message: string }) {
  const { services, business, account } = owner;
  const admins = await listAdminEmails(services.db);
  const t = owner.t;
  return services.db.transaction(async (tx) => {
    const ticket = await createSupportTicket(tx, {
      businessId: business.id,
      accountId: account.id,
      email: account.email,
      subject: input.subject,
      message: input.message,
      priority: isPriority(owner),
    });
    const link = `${services.publicOrigin()}/admin/support`;
    for (const to of admins) {
      await services.jobs.enqueue(
        sendEmailJob,
        supportTicketEmail(t, owner.locale, { to, business: business.name, subject: ticket.subject, priority: ticket.priority, link }),
        { tx },
      );
    }
    return ticket;
  });
}
