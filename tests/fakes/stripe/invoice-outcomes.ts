// What a payment's outcome does to the invoice it collects (paid, or an attempt that failed), and
// to the subscription the invoice belongs to. Both invoices.ts and payment-intents.ts reach it, so
// it imports neither.
import { now, type Ctx, clone, diff } from "./objects";
import type { Obj } from "./types";
import type { FakeStripeState } from "./state";
import { emit } from "./events";

export function markInvoicePaid(state: FakeStripeState, invoice: Obj) {
  invoice.status = "paid";
  invoice.amount_paid = invoice.amount_due;
  invoice.amount_remaining = 0;
  invoice.status_transitions.paid_at = now();
  state.confirmationSecretOf.delete(invoice.id);
}

/**
 * A PaymentIntent of an invoice succeeded: the invoice is paid; a subscription whose latest
 * invoice it is becomes active, and with payment_settings.save_default_payment_method
 * on_subscription it keeps the card as its default payment method.
 */
export function invoicePaid(state: FakeStripeState, ctx: Ctx | null, invoiceId: string, paymentMethodId?: string, outOfBand = false) {
  const invoice = state.invoices.get(invoiceId);
  if (!invoice || invoice.status === "paid") return;
  if (!outOfBand) {
    invoice.attempted = true;
    invoice.attempt_count += 1;
  }
  markInvoicePaid(state, invoice);
  emit(state, ctx, "invoice.paid", invoice);
  const sub = state.subscriptions.get(invoice.parent?.subscription_details?.subscription);
  if (!sub || sub.status === "canceled" || sub.status === "incomplete_expired") return;
  const before = clone(sub);
  if (sub.latest_invoice === invoice.id && ["incomplete", "past_due", "unpaid"].includes(sub.status)) sub.status = "active";
  if (paymentMethodId && sub.payment_settings.save_default_payment_method === "on_subscription")
    sub.default_payment_method = paymentMethodId;
  const changes = diff(before, sub);
  if (state.quietSubscription !== sub.id && Object.keys(changes).length > 0)
    emit(state, ctx, "customer.subscription.updated", sub, changes);
}

export function invoicePaymentFailed(state: FakeStripeState, ctx: Ctx | null, invoiceId: string) {
  const invoice = state.invoices.get(invoiceId);
  if (!invoice) return;
  invoice.attempted = true;
  invoice.attempt_count += 1;
  emit(state, ctx, "invoice.payment_failed", invoice);
}
