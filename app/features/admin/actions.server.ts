import type { Account } from "#models/accounts";
import { closeSupportTicket, findPayment, markCallReviewed, markPaymentRefunded, setBusinessStatus } from "#models/admin-lists";
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
 * Refunds a payment in full through Stripe. The idempotency key is the payment's own, so a
 * double click or a retry after a timeout refunds once; Stripe's "already refunded" counts as done.
 */
export async function refundPayment(services: AppServices, admin: Account, paymentId: number): Promise<RefundResult> {
  if (!services.payments) return { ok: false, reason: "not_configured" };
  const payment = await findPayment(services.db, paymentId);
  if (!payment) return { ok: false, reason: "not_found" };
  if (payment.refundedAt) return { ok: false, reason: "already_refunded" };
  let refundId: string;
  try {
    ({ refundId } = await services.payments.refund(
      payment.providerPaymentId,
      { reason: "admin", paymentId: String(payment.id), admin: admin.email },
      `admin-refund-${payment.providerPaymentId}`,
    ));
  } catch (error) {
    if (error instanceof PaymentsError) return { ok: false, reason: "provider", message: error.message };
    throw error;
  }
  await services.db.transaction(async (tx) => {
    await markPaymentRefunded(tx, payment.id);
    await audit(
      tx,
      admin,
      "payment.refund",
      { type: "payment", id: payment.id },
      { refundId, amountCents: payment.amountCents, currency: payment.currency },
    );
  });
  return { ok: true };
}
