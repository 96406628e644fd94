// PaymentIntents: creating, confirming and charging them, and the publishable-key view.
import { invalid, bad, describe, docUrl, ApiError, noSuch } from "./validation";
import { cardBehavior } from "./cards";
import {
  PUBLIC_PI_FIELDS,
  clone,
  checkCurrency,
  MINIMUM_CHARGE,
  formatAmount,
  newId,
  random,
  now,
  mergeMetadata,
  type Ctx,
} from "./objects";
import type { Obj } from "./types";
import { store, type FakeStripeState } from "./state";
import { emit } from "./events";
import { customerParam, resolvePaymentMethod, createPaymentMethod } from "./customers";
import { invoicePaymentFailed, invoicePaid } from "./invoice-outcomes";

export function publicIntent(pi: Obj): Obj {
  const out: Obj = {};
  for (const key of PUBLIC_PI_FIELDS) if (key in pi) out[key] = clone(pi[key]);
  return out;
}

export function newPaymentIntent(state: FakeStripeState, p: Obj): Obj {
  const currency = checkCurrency(p.currency, "currency");
  const amount = p.amount as number;
  const minimum = MINIMUM_CHARGE[currency] ?? 50;
  if (amount < minimum) {
    throw invalid(`Amount must be at least ${formatAmount(minimum, currency)} ${currency}`, {
      param: "amount",
      code: "amount_too_small",
    });
  }
  if (amount > 99_999_999) throw invalid("Amount must be no more than 999,999.99", { param: "amount", code: "amount_too_large" });
  const customer = customerParam(state, p.customer);
  const automatic =
    p.automatic_payment_methods === undefined
      ? { allow_redirects: "always", enabled: true }
      : p.automatic_payment_methods === null || p.automatic_payment_methods.enabled === false
        ? null
        : { allow_redirects: p.automatic_payment_methods.allow_redirects ?? "always", enabled: true };
  const id = newId("pi");
  const allowed = (p.allowed_payment_method_types as string[] | undefined) ?? null;
  return store(state, state.paymentIntents, {
    id,
    object: "payment_intent",
    allowed_payment_method_types: allowed,
    amount,
    amount_capturable: 0,
    amount_details: { tip: {} },
    amount_received: 0,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: automatic,
    canceled_at: null,
    cancellation_reason: null,
    capture_method: p.capture_method ?? "automatic_async",
    client_secret: `${id}_secret_${random(25)}`,
    confirmation_method: "automatic",
    created: now(),
    currency,
    customer: customer?.id ?? null,
    customer_account: null,
    description: p.description ?? null,
    excluded_payment_method_types: null,
    last_payment_error: null,
    latest_charge: null,
    livemode: false,
    managed_payments: null,
    metadata: mergeMetadata({}, p.metadata),
    next_action: null,
    on_behalf_of: null,
    payment_method: null,
    payment_method_configuration_details: automatic ? { id: "pmc_fake_default", parent: null } : null,
    payment_method_options: { card: { installments: null, mandate_options: null, network: null, request_three_d_secure: "automatic" } },
    payment_method_types: allowed ? allowed.filter((t) => t === "card" || t === "link") : ["card"],
    payment_record: null,
    processing: null,
    receipt_email: p.receipt_email ?? null,
    review: null,
    setup_future_usage: p.setup_future_usage ?? null,
    shipping: null,
    source: null,
    statement_descriptor: p.statement_descriptor ?? null,
    statement_descriptor_suffix: p.statement_descriptor_suffix ?? null,
    status: "requires_payment_method",
    transfer_data: null,
    transfer_group: null,
  });
}

export const CONFIRMABLE = ["requires_payment_method", "requires_confirmation", "requires_action"];

/** Parses what a confirmation pays with: a PaymentMethod id or (publishable key only) raw card data. */
export function paymentSource(state: FakeStripeState, ctx: Ctx, p: Obj): { pm?: Obj } {
  if (typeof p.payment_method === "string" && p.payment_method) {
    return { pm: resolvePaymentMethod(state, p.payment_method, "payment_method") };
  }
  const data = p.payment_method_data as Obj | undefined;
  if (data && typeof data === "object") {
    if (data.type === undefined)
      throw bad("Missing required param: payment_method_data[type].", "payment_method_data[type]", "parameter_missing");
    if (data.type !== "card")
      throw invalid(`The fake Stripe supports only card payment methods, not ${describe(data.type)}.`, {
        param: "payment_method_data[type]",
      });
    const card = data.card as Obj | undefined;
    if (ctx.auth === "secret" && card && typeof card === "object" && "number" in card) {
      throw invalid(
        "Sending credit card numbers directly to the Stripe API is generally unsafe. We suggest you use test tokens that map to the test card you are using, see https://stripe.com/docs/testing. To enable raw card data APIs in test mode, see https://support.stripe.com/questions/enabling-access-to-raw-card-data-apis.",
      );
    }
    if (!card || typeof card !== "object" || typeof card.number !== "string") {
      throw bad("Missing required param: payment_method_data[card][number].", "payment_method_data[card][number]", "parameter_missing");
    }
    return { pm: createPaymentMethod(state, card.number.replace(/\D/g, "")) };
  }
  return {};
}

/** Charges a PaymentIntent with a PaymentMethod. Updates state and queues events; never throws for a decline. */
export function chargeIntent(state: FakeStripeState, ctx: Ctx | null, pi: Obj, pm: Obj): { ok: true } | { ok: false; error: Obj } {
  if (pm.customer && pi.customer && pm.customer !== pi.customer) {
    throw invalid(
      `The provided PaymentMethod belongs to a different Customer (${pm.customer}) than the one on this PaymentIntent (${pi.customer}).`,
      { param: "payment_method" },
    );
  }
  if (pm.customer && !pi.customer) {
    throw invalid(
      `The provided PaymentMethod belongs to a Customer, but you did not provide one. Pass the Customer's ID (${pm.customer}) as the customer parameter of this PaymentIntent.`,
      { param: "payment_method" },
    );
  }
  if (!pm.customer && state.usedPaymentMethods.has(pm.id)) {
    throw invalid(
      "The provided PaymentMethod was previously used with a PaymentIntent without Customer attachment, shared with a connected account without Customer attachment, or was detached from a Customer. It may not be used again. To use a PaymentMethod multiple times, you must attach it to a Customer first.",
      { param: "payment_method" },
    );
  }
  const allowed = pi.allowed_payment_method_types as string[] | null;
  if (allowed && !allowed.includes("card")) {
    throw invalid(
      `The PaymentMethod provided (card) is not allowed for this PaymentIntent. Please attach a PaymentMethod of one of the following types: ${allowed.join(", ")}. Alternatively, update the allowed_payment_method_types for this PaymentIntent to include "card".`,
      { param: "payment_method", code: "payment_intent_incompatible_payment_method" },
    );
  }
  const behavior = cardBehavior(state.cardNumberOf.get(pm.id) ?? "");
  state.usedPaymentMethods.add(pm.id);
  const success = !behavior.decline;
  const manual = pi.capture_method === "manual";
  const charge = store(state, state.charges, {
    id: newId("ch"),
    object: "charge",
    amount: pi.amount,
    amount_captured: success && !manual ? pi.amount : 0,
    amount_refunded: 0,
    application: null,
    application_fee: null,
    application_fee_amount: null,
    balance_transaction: success && !manual ? newId("txn") : null,
    billing_details: clone(pm.billing_details),
    calculated_statement_descriptor: "SAKINA",
    captured: success && !manual,
    created: now(),
    currency: pi.currency,
    customer: pi.customer,
    description: pi.description,
    disputed: false,
    failure_balance_transaction: null,
    failure_code: behavior.decline?.code ?? null,
    failure_message: behavior.decline?.message ?? null,
    fraud_details: {},
    livemode: false,
    metadata: { ...pi.metadata },
    on_behalf_of: null,
    outcome: success
      ? {
          network_status: "approved_by_network",
          reason: null,
          risk_level: "normal",
          risk_score: 20,
          seller_message: "Payment complete.",
          type: "authorized",
        }
      : {
          network_status: "declined_by_network",
          reason: behavior.decline?.decline_code ?? null,
          risk_level: "normal",
          risk_score: 20,
          seller_message: "The bank did not return any further details with this decline.",
          type: "issuer_declined",
        },
    paid: success,
    payment_intent: pi.id,
    payment_method: pm.id,
    payment_method_details: {
      card: {
        brand: pm.card.brand,
        country: pm.card.country,
        exp_month: pm.card.exp_month,
        exp_year: pm.card.exp_year,
        funding: pm.card.funding,
        last4: pm.card.last4,
        network: pm.card.brand,
      },
      type: "card",
    },
    receipt_email: pi.receipt_email,
    receipt_number: null,
    receipt_url: `${state.origin}/receipts/${pi.id}`,
    refunded: false,
    review: null,
    shipping: null,
    status: success ? "succeeded" : "failed",
    transfer_data: null,
    transfer_group: null,
  });
  pi.latest_charge = charge.id;
  if (!success) {
    const decline = behavior.decline!;
    const error: Obj = {
      type: "card_error",
      code: decline.code,
      ...(decline.decline_code ? { decline_code: decline.decline_code } : {}),
      doc_url: docUrl(decline.code),
      message: decline.message,
      charge: charge.id,
      payment_method: clone(pm),
    };
    pi.last_payment_error = error;
    pi.payment_method = null;
    pi.status = "requires_payment_method";
    emit(state, ctx, "payment_intent.payment_failed", pi);
    const invoiceId = state.invoiceOfIntent.get(pi.id);
    if (invoiceId) invoicePaymentFailed(state, ctx, invoiceId);
    return { ok: false, error: { ...error, payment_intent: clone(pi) } };
  }
  pi.last_payment_error = null;
  pi.payment_method = pm.id;
  if (pi.setup_future_usage && pi.customer && !pm.customer) pm.customer = pi.customer;
  if (manual) {
    pi.status = "requires_capture";
    pi.amount_capturable = pi.amount;
    emit(state, ctx, "payment_intent.amount_capturable_updated", pi);
    return { ok: true };
  }
  pi.status = "succeeded";
  pi.amount_received = pi.amount;
  emit(state, ctx, "payment_intent.succeeded", pi);
  const invoiceId = state.invoiceOfIntent.get(pi.id);
  if (invoiceId) invoicePaid(state, ctx, invoiceId, pm.id);
  return { ok: true };
}

export function confirmIntent(state: FakeStripeState, ctx: Ctx, pi: Obj, p: Obj): Obj {
  if (!CONFIRMABLE.includes(pi.status)) {
    throw invalid(
      `You cannot confirm this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be confirmed: ${CONFIRMABLE.join(", ")}.`,
      { code: "payment_intent_unexpected_state" },
    );
  }
  const offSession = p.off_session === true || p.off_session === "true" || p.off_session === "one_off" || p.off_session === "recurring";
  if (p.setup_future_usage !== undefined) pi.setup_future_usage = p.setup_future_usage;
  if (p.receipt_email !== undefined) pi.receipt_email = p.receipt_email;
  const source = paymentSource(state, ctx, p);
  const pm = source.pm ?? (pi.payment_method ? state.paymentMethods.get(pi.payment_method) : undefined);
  if (!pm) {
    throw invalid(
      "You cannot confirm this PaymentIntent because it's missing a payment method. You can either update the PaymentIntent with a payment method and then confirm it again, or confirm it again directly with a payment method.",
      { code: "payment_intent_unexpected_state" },
    );
  }
  const cardOnly = Array.isArray(pi.allowed_payment_method_types) && pi.allowed_payment_method_types.every((t: string) => t === "card");
  requireReturnUrl(pi, p, offSession || cardOnly);
  const result = chargeIntent(state, ctx, pi, pm);
  if (!result.ok) throw new ApiError(402, result.error);
  return pi;
}

/**
 * Stripe's rule since API version 2023-08-16 (automatic payment methods on by default): an intent
 * whose automatic payment methods allow redirects is confirmed only with a `return_url`, whoever
 * confirms it: the server with the secret key, or Stripe.js with the publishable key and the
 * client secret (the Payment Element's `confirmParams.return_url`). `allow_redirects=never`
 * lifts it, as do `off_session` and card-only intents (`exempt`); a given `return_url` must be an
 * absolute http(s) URL.
 */
export function requireReturnUrl(intent: Obj, p: Obj, exempt = false) {
  if (p.return_url !== undefined && p.return_url !== null && p.return_url !== "") {
    try {
      if (!/^https?:$/.test(new URL(String(p.return_url)).protocol)) throw new Error("scheme");
    } catch {
      throw invalid("Not a valid URL", { param: "return_url", code: "url_invalid" });
    }
    return;
  }
  const apm = intent.automatic_payment_methods as Obj | null;
  if (exempt || !apm?.enabled || apm.allow_redirects === "never") return;
  const kind = intent.object === "setup_intent" ? "Setup Intent" : "PaymentIntent";
  throw invalid(
    `This ${kind} is configured to accept payment methods enabled in your Dashboard. Because some of these payment methods might redirect your customer off of your page, you must provide a \`return_url\`. If you don't want to accept redirect-based payment methods, set \`automatic_payment_methods[enabled]\` to \`true\` and \`automatic_payment_methods[allow_redirects]\` to \`never\` when creating Setup Intents and Payment Intents.`,
    { param: "return_url" },
  );
}

export function intentForKey(state: FakeStripeState, ctx: Ctx, id: string, p: Obj): Obj {
  const pi = state.paymentIntents.get(id);
  if (ctx.auth === "publishable") {
    if (typeof p.client_secret !== "string") {
      throw invalid("This API call cannot be made with a publishable API key without the PaymentIntent's client_secret.", {
        param: "client_secret",
        code: "parameter_missing",
      });
    }
    if (!pi || pi.client_secret !== p.client_secret) throw noSuch("payment_intent", id);
    return pi;
  }
  if (!pi) throw noSuch("payment_intent", id);
  return pi;
}
