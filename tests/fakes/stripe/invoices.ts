// Invoices of subscriptions: creating them (metered usage included), charging and paying them.
import { invalid, ApiError } from "./validation";
import { newId, now, type Ctx } from "./objects";
import type { Obj } from "./types";
import { type FakeStripeState, store } from "./state";
import { emit } from "./events";
import { paymentMethodOfCustomer } from "./customers";
import { CONFIRMABLE, newPaymentIntent, chargeIntent } from "./payment-intents";
import { invoicePaid, invoicePaymentFailed, markInvoicePaid } from "./invoice-outcomes";
import { priceAmount } from "./prices";

/**
 * The usage a metered item accrued since it was last billed: the sum of the values of its
 * meter's events for the subscription's customer. Marks them billed (the fake has no clock, so
 * "the period that ends" is "everything not billed yet").
 */
function takeMeteredUsage(state: FakeStripeState, sub: Obj, item: Obj): number {
  const meter = item.price.recurring?.meter ? state.meters.get(item.price.recurring.meter) : undefined;
  if (!meter) return 0;
  let total = 0;
  for (const [identifier, event] of state.meterEvents) {
    if (state.billedMeterEvents.has(identifier) || event.event_name !== meter.event_name) continue;
    if (event.payload[meter.customer_mapping.event_payload_key] !== sub.customer) continue;
    state.billedMeterEvents.add(identifier);
    total += Number(event.payload[meter.value_settings.event_payload_key] ?? 0) || 0;
  }
  return total;
}

/**
 * `usage`: bill metered items in arrears for what they accrued (a renewal); otherwise their
 * accrued usage is dropped (a trial's end bills none) and they bill nothing.
 */
export function createInvoice(
  state: FakeStripeState,
  sub: Obj,
  reason: string,
  extraLines: { price: Obj; quantity: number }[] = [],
  usage = false,
): Obj {
  const customer = state.customers.get(sub.customer)!;
  const trial = sub.status === "trialing";
  const lines: Obj[] = [];
  for (const item of sub.items.data as Obj[]) {
    const metered = item.price.recurring?.usage_type === "metered";
    const used = metered ? takeMeteredUsage(state, sub, item) : 0;
    const quantity = metered ? (usage ? used : 0) : (item.quantity ?? 0);
    const amount = trial
      ? 0
      : metered
        ? priceAmount({ ...item.price, recurring: { ...item.price.recurring, usage_type: "licensed" } }, quantity)
        : priceAmount(item.price, quantity);
    lines.push({
      id: newId("il"),
      object: "line_item",
      amount,
      currency: sub.currency,
      description: `${item.quantity ?? 1} × ${state.products.get(item.price.product)?.name ?? "Item"}${trial ? " (trial)" : ""}`,
      livemode: false,
      metadata: {},
      parent: {
        type: "subscription_item_details",
        subscription_item_details: { subscription: sub.id, subscription_item: item.id, proration: false },
      },
      period: { end: item.current_period_end, start: item.current_period_start },
      pricing: {
        price_details: { price: item.price.id, product: item.price.product },
        type: "price_details",
        unit_amount_decimal: item.price.unit_amount_decimal,
      },
      quantity: metered ? quantity : (item.quantity ?? null),
    });
  }
  for (const extra of extraLines) {
    lines.push({
      id: newId("il"),
      object: "line_item",
      amount: priceAmount(extra.price, extra.quantity),
      currency: sub.currency,
      description: state.products.get(extra.price.product)?.name ?? "Item",
      livemode: false,
      metadata: {},
      parent: {
        type: "invoice_item_details",
        invoice_item_details: { invoice_item: newId("ii"), proration: false, subscription: sub.id },
      },
      period: { end: now(), start: now() },
      pricing: {
        price_details: { price: extra.price.id, product: extra.price.product },
        type: "price_details",
        unit_amount_decimal: extra.price.unit_amount_decimal,
      },
      quantity: extra.quantity,
    });
  }
  const total = lines.reduce((sum, line) => sum + line.amount, 0);
  const id = newId("in");
  const first = (sub.items.data as Obj[])[0]!;
  return store(state, state.invoices, {
    id,
    object: "invoice",
    account_country: "US",
    account_name: "Sakina (test)",
    amount_due: total,
    amount_overpaid: 0,
    amount_paid: 0,
    amount_remaining: total,
    attempt_count: 0,
    attempted: false,
    billing_reason: reason,
    collection_method: sub.collection_method,
    created: now(),
    currency: sub.currency,
    customer: sub.customer,
    customer_email: customer.email,
    customer_name: customer.name,
    default_payment_method: null,
    description: null,
    hosted_invoice_url: `${state.origin}/invoices/${id}`,
    invoice_pdf: `${state.origin}/invoices/${id}/pdf`,
    lines: { object: "list", data: lines, has_more: false, total_count: lines.length, url: `/v1/invoices/${id}/lines` },
    livemode: false,
    metadata: {},
    number: `${customer.invoice_prefix}-${String(customer.next_invoice_sequence++).padStart(4, "0")}`,
    parent: {
      type: "subscription_details",
      quote_details: null,
      subscription_details: { metadata: { ...sub.metadata }, subscription: sub.id },
    },
    period_end: first.current_period_start,
    period_start: first.current_period_start,
    status: "open",
    status_transitions: { finalized_at: now(), marked_uncollectible_at: null, paid_at: null, voided_at: null },
    subtotal: total,
    total,
  });
}

/** The PaymentIntent that collects an open invoice: the one still payable, or a new one. */
function intentForInvoice(state: FakeStripeState, invoice: Obj): Obj {
  const current = state.paymentIntents.get(state.confirmationSecretOf.get(invoice.id)?.client_secret.split("_secret_")[0] ?? "");
  if (current && CONFIRMABLE.includes(current.status)) return current;
  const pi = newPaymentIntent(state, {
    amount: invoice.amount_remaining,
    currency: invoice.currency,
    customer: invoice.customer,
    description: invoice.billing_reason === "subscription_create" ? "Subscription creation" : "Subscription update",
    automatic_payment_methods: { enabled: false },
  });
  pi.setup_future_usage = "off_session";
  state.invoiceOfIntent.set(pi.id, invoice.id);
  state.confirmationSecretOf.set(invoice.id, { client_secret: pi.client_secret, type: "payment_intent" });
  return pi;
}

/**
 * Collects an open invoice: with default_incomplete a PaymentIntent is left for the customer to
 * confirm (invoice.confirmation_secret); otherwise the default payment method is charged.
 */
export function collectInvoice(
  state: FakeStripeState,
  ctx: Ctx | null,
  invoice: Obj,
  behavior: string,
  pm: Obj | null,
): "paid" | "open" | "failed" {
  if (invoice.amount_due === 0) {
    markInvoicePaid(state, invoice);
    emit(state, ctx, "invoice.paid", invoice);
    return "paid";
  }
  const pi = intentForInvoice(state, invoice);
  if (behavior === "default_incomplete" || !pm) return "open";
  const result = chargeIntent(state, ctx, pi, pm);
  return result.ok ? "paid" : "failed";
}

/** The payment method a subscription's invoices are charged to: its own, else its customer's. */
function defaultPaymentMethodOf(state: FakeStripeState, sub: Obj): Obj | null {
  const customer = state.customers.get(sub.customer);
  const id = sub.default_payment_method ?? customer?.invoice_settings.default_payment_method ?? null;
  return id ? (state.paymentMethods.get(id) ?? null) : null;
}

/**
 * Charges a subscription's new invoice automatically (trial end, renewal): a decline or a missing
 * payment method fails the attempt (invoice.payment_failed) and leaves the subscription past_due.
 * The caller sends customer.subscription.updated.
 */
export function chargeSubscriptionInvoice(state: FakeStripeState, ctx: Ctx | null, sub: Obj, invoice: Obj) {
  const pm = defaultPaymentMethodOf(state, sub);
  state.quietSubscription = sub.id;
  let outcome: "paid" | "open" | "failed";
  try {
    outcome = collectInvoice(state, ctx, invoice, "allow_incomplete", pm);
  } finally {
    state.quietSubscription = null;
  }
  if (outcome === "open") invoicePaymentFailed(state, ctx, invoice.id);
  if (outcome !== "paid") sub.status = "past_due";
  else if (sub.status === "past_due" || sub.status === "unpaid") sub.status = "active";
}

/** POST /v1/invoices/:id/pay: charges the given or the default payment method now. */
export function payInvoice(state: FakeStripeState, ctx: Ctx, invoice: Obj, p: Obj): Obj {
  if (invoice.status === "paid") throw invalid("Invoice is already paid");
  if (invoice.status !== "open")
    throw invalid(`You can only pay an invoice with a status of open. This invoice has a status of ${invoice.status}.`);
  if (p.paid_out_of_band) {
    // Paid outside Stripe: marked paid, nothing charged.
    invoicePaid(state, ctx, invoice.id, undefined, true);
    return invoice;
  }
  const customer = state.customers.get(invoice.customer)!;
  const sub = state.subscriptions.get(invoice.parent?.subscription_details?.subscription);
  let pm: Obj | null;
  if (p.payment_method) pm = paymentMethodOfCustomer(state, customer, p.payment_method, "payment_method");
  else if (invoice.default_payment_method) pm = state.paymentMethods.get(invoice.default_payment_method) ?? null;
  else if (sub) pm = defaultPaymentMethodOf(state, sub);
  else
    pm = customer.invoice_settings.default_payment_method
      ? (state.paymentMethods.get(customer.invoice_settings.default_payment_method) ?? null)
      : null;
  if (!pm) {
    throw invalid(
      "This customer has no attached payment source or default payment method. Please consider adding a default payment method. For more information, visit https://docs.stripe.com/billing/subscriptions/payment-methods-setting#payment-method-priority.",
      { code: "resource_missing" },
    );
  }
  const result = chargeIntent(state, ctx, intentForInvoice(state, invoice), pm);
  if (!result.ok) throw new ApiError(402, result.error);
  return invoice;
}
