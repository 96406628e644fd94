import type { Account } from "#models/accounts";
import { closeSupportTicket, lockPayment, markCallReviewed, markPaymentRefunded, setBusinessStatus } from "#models/admin-lists";
import { findEmpathyRequestByPaymentIntent } from "#models/empathy";
import { refundEmpathyRequest } from "~/features/empathy/index.server";
import { PaymentsError } from "~/providers/payments.server";
import type { AppServices } from "~/platform/services.server";
import { audit } from "./access.server";

/**
 * What an admin can change. Each change and its audit entry commit together: no action without
 * its entry, no entry for an action that did not happen. Each answers null when nothing changed
 * (the row was not in the state the button was shown for, e.g. a second click).
 */

export async function suspendBusiness(services: AppServices, admin: Account, businessId: number) {
  return services.db.transaction(async (tx) => {
    const changed = await setBusinessStatus(tx, businessId, "active", "suspended");
    if (changed) await audit(tx, admin, "business.suspend", { type: "business", id: businessId }, { name: changed.name });
    return changed;
  });
}

export async function reactivateBusiness(services: AppServices, admin: Account, businessId: number) {
  return services.db.transaction(async (tx) => {
    const changed = await setBusinessStatus(tx, businessId, "suspended", "active");
    if (changed) await audit(tx, admin, "business.reactivate", { type: "business", id: businessId }, { name: changed.name });
    return changed;
  });
}

export async function reviewCall(services: AppServices, admin: Account, callId: number) {
  return services.db.transaction(async (tx) => {
    const changed = await markCallReviewed(tx, callId);
    if (changed) await audit(tx, admin, "call.reviewed", { type: "call", id: callId });
    return changed;
  });
}

export async function closeTicket(services: AppServices, admin: Account, ticketId: number) {
  return services.db.transaction(async (tx) => {
    const changed = await closeSupportTicket(tx, ticketId);
    if (changed) await audit(tx, admin, "support.close", { type: "support_ticket", id: ticketId });
    return changed;
  });
}

export type RefundResult =
  | { ok: true }
  | { ok: false; reason: "not_configured" | "not_found" | "already_refunded" }
  | { ok: false; reason: "provider"; message: string };

/**
 * Refunds a payment in full through Stripe, deciding and recording in one transaction: the
 * payment's row stays locked from the check to the audit entry, so of several clicks (or admins)
 * at once, one refunds and writes the entry; the others wait, then find it refunded. The Stripe
 * call inside the transaction carries the payment's own idempotency key, so a retry after a
 * rolled-back attempt refunds once too.
 */
export async function refundPayment(services: AppServices, admin: Account, paymentId: number): Promise<RefundResult> {
  const payments = services.payments;
  if (!payments) return { ok: false, reason: "not_configured" };
  return services.db.transaction(async (tx): Promise<RefundResult> => {
    const payment = await lockPayment(tx, paymentId);
    if (!payment) return { ok: false, reason: "not_found" };
    if (payment.refundedAt) return { ok: false, reason: "already_refunded" };
    // A paid call whose $5 is owed back (its refund job is trying, or gave up) is refunded with
    // the job's own request and key: Stripe refunds once, and the request becomes refunded.
    const owed = await findEmpathyRequestByPaymentIntent(tx, payment.providerPaymentId);
    let refundId: string;
    try {
      const asJob = owed ? await refundEmpathyRequest(services, tx, owed) : null;
      ({ refundId } =
        asJob ??
        (await payments.refund(
          payment.providerPaymentId,
          { reason: "admin", paymentId: String(payment.id), admin: admin.email },
          `admin-refund-${payment.providerPaymentId}`,
        )));
    } catch (error) {
      if (error instanceof PaymentsError) return { ok: false, reason: "provider", message: error.message };
      throw error;
    }
    await markPaymentRefunded(tx, payment.id);
    await audit(
      tx,
      admin,
      "payment.refund",
      { type: "payment", id: payment.id },
      { refundId, amountCents: payment.amountCents, currency: payment.currency },
    );
    return { ok: true };
  });
}
