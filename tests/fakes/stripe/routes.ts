// The API route table: method, path pattern and handler of every endpoint the fake answers.
import { params, noSuch, invalid, ApiError } from "./validation";
import {
  CUSTOMER_CREATE,
  EXPAND_ONLY,
  CUSTOMER_UPDATE,
  PM_ATTACH,
  PI_CREATE,
  PI_RETRIEVE,
  PI_UPDATE,
  PI_CONFIRM_PUBLISHABLE,
  PI_CONFIRM,
  PI_CANCEL,
  PI_CAPTURE,
  REFUND_CREATE,
  CHECKOUT_CREATE,
  LIST,
  PRODUCT_CREATE,
  PRICE_CREATE,
  PRICE_LIST,
  METER_CREATE,
  METER_LIST,
  METER_EVENT_CREATE,
  SUB_CREATE,
  SUB_UPDATE,
  SUB_CANCEL,
  INVOICE_PAY,
  SI_RETRIEVE,
  SI_CONFIRM_PUBLISHABLE,
  SI_CONFIRM,
} from "./params";
import { TEST_PAYMENT_METHODS } from "./cards";
import {
  type Route,
  MINIMUM_CHARGE,
  formatAmount,
  checkCurrency,
  mergeMetadata,
  now,
  newId,
  clone,
  diff,
  list,
  newestFirst,
} from "./objects";
import type { Obj } from "./types";
import { getOr404, store, type FakeStripeState } from "./state";
import { emit } from "./events";
import { expand, validateExpansion } from "./expand";
import { createCustomer, resolvePaymentMethod, attachPaymentMethod, updateCustomerFields, customerParam } from "./customers";
import { paymentSource, newPaymentIntent, confirmIntent, intentForKey, publicIntent } from "./payment-intents";
import { setupIntentForKey, publicSetupIntent, confirmSetupIntent } from "./setup-intents";
import { createProduct, createPrice } from "./prices";
import { newSubscription, updateSubscription, cancelSubscription } from "./subscriptions";
import { payInvoice } from "./invoices";
import { createCheckoutSession } from "./checkout";
import { recordMeterEvent } from "./meters";

const ID = "([^/]+)";

export function createRoutes(state: FakeStripeState): Route[] {
  return [
    // Customers
    {
      method: "POST",
      pattern: /^\/v1\/customers$/,
      handler: (_ctx, raw) => {
        const p = params(raw, CUSTOMER_CREATE);
        const customer = createCustomer(state, p);
        const attached = p.payment_method ? resolvePaymentMethod(state, p.payment_method, "payment_method") : null;
        if (attached) attachPaymentMethod(state, attached, customer);
        if (p.invoice_settings) {
          // The same test PaymentMethod (pm_card_visa) in both names the one just attached.
          const settings = { ...(p.invoice_settings as Obj) };
          if (attached && settings.default_payment_method === p.payment_method) settings.default_payment_method = attached.id;
          updateCustomerFields(state, customer, { invoice_settings: settings });
        }
        return expand(state, customer, p.expand);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/customers/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        const customer = getOr404(state.customers, "customer", id!);
        return customer.deleted ? { id: customer.id, object: "customer", deleted: true } : expand(state, customer, p.expand);
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^/v1/customers/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, CUSTOMER_UPDATE);
        const customer = getOr404(state.customers, "customer", id!);
        if (customer.deleted) throw noSuch("customer", id!);
        updateCustomerFields(state, customer, p);
        return expand(state, customer, p.expand);
      },
    },
    {
      method: "DELETE",
      pattern: new RegExp(`^/v1/customers/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        params(raw, {});
        const customer = getOr404(state.customers, "customer", id!);
        if (customer.deleted) throw noSuch("customer", id!);
        customer.deleted = true;
        return { id: customer.id, object: "customer", deleted: true };
      },
    },
    // Payment methods
    {
      method: "GET",
      pattern: new RegExp(`^/v1/payment_methods/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        return expand(state, getOr404(state.paymentMethods, "PaymentMethod", id!), p.expand);
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^/v1/payment_methods/${ID}/attach$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, PM_ATTACH, ["customer"]);
        const customer = customerParam(state, p.customer)!;
        const pm = TEST_PAYMENT_METHODS[id!]
          ? resolvePaymentMethod(state, id!, "payment_method")
          : getOr404(state.paymentMethods, "PaymentMethod", id!);
        attachPaymentMethod(state, pm, customer);
        return expand(state, pm, p.expand);
      },
    },
    // Payment intents
    {
      method: "POST",
      pattern: /^\/v1\/payment_intents$/,
      handler: (ctx, raw) => {
        const p = params(raw, PI_CREATE, ["amount", "currency"]);
        if (p.off_session !== undefined && !p.confirm)
          throw invalid("You may only specify `off_session` when `confirm` is true.", { param: "off_session" });
        if (p.return_url !== undefined && !p.confirm)
          throw invalid("You may only specify `return_url` when `confirm` is true.", { param: "return_url" });
        if (p.payment_method_data !== undefined && !p.confirm && ctx.auth === "secret") {
          paymentSource(state, ctx, { payment_method_data: p.payment_method_data });
        }
        const pi = newPaymentIntent(state, p);
        if (p.payment_method && !p.confirm) {
          pi.payment_method = resolvePaymentMethod(state, p.payment_method, "payment_method").id;
          pi.status = "requires_confirmation";
        }
        if (p.confirm) confirmIntent(state, ctx, pi, p);
        return expand(state, pi, p.expand);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/payment_intents/${ID}$`),
      publishable: true,
      handler: (ctx, raw, [, id]) => {
        const p = params(raw, PI_RETRIEVE);
        const pi = intentForKey(state, ctx, id!, p);
        return ctx.auth === "publishable" ? publicIntent(pi) : expand(state, pi, p.expand);
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^/v1/payment_intents/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, PI_UPDATE);
        const pi = getOr404(state.paymentIntents, "payment_intent", id!);
        const updatable = ["requires_payment_method", "requires_confirmation", "requires_action"];
        if (!updatable.includes(pi.status)) {
          throw invalid(
            `You cannot update this PaymentIntent because it has a status of ${pi.status}. Updates are only allowed when the PaymentIntent has one of the following statuses: ${updatable.join(", ")}.`,
            { code: "payment_intent_unexpected_state" },
          );
        }
        if (p.amount !== undefined) {
          const minimum = MINIMUM_CHARGE[pi.currency] ?? 50;
          if (p.amount < minimum)
            throw invalid(`Amount must be at least ${formatAmount(minimum, pi.currency)} ${pi.currency}`, {
              param: "amount",
              code: "amount_too_small",
            });
          pi.amount = p.amount;
        }
        if (p.currency !== undefined) pi.currency = checkCurrency(p.currency, "currency");
        if (p.customer !== undefined) pi.customer = customerParam(state, p.customer)?.id ?? null;
        for (const key of ["description", "receipt_email", "setup_future_usage", "statement_descriptor", "statement_descriptor_suffix"]) {
          if (key in p) pi[key] = p[key];
        }
        if ("metadata" in p) pi.metadata = mergeMetadata(pi.metadata, p.metadata);
        if (p.payment_method) {
          pi.payment_method = resolvePaymentMethod(state, p.payment_method, "payment_method").id;
          pi.status = "requires_confirmation";
        }
        return expand(state, pi, p.expand);
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^/v1/payment_intents/${ID}/confirm$`),
      publishable: true,
      handler: (ctx, raw, [, id]) => {
        const p = params(raw, ctx.auth === "publishable" ? PI_CONFIRM_PUBLISHABLE : PI_CONFIRM);
        const pi = intentForKey(state, ctx, id!, p);
        try {
          confirmIntent(state, ctx, pi, p);
        } catch (error) {
          // A publishable key sees the redacted PaymentIntent in a card error too.
          if (error instanceof ApiError && error.error.payment_intent && ctx.auth === "publishable")
            error.error.payment_intent = publicIntent(pi);
          throw error;
        }
        return ctx.auth === "publishable" ? publicIntent(pi) : expand(state, pi, p.expand);
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^/v1/payment_intents/${ID}/cancel$`),
      handler: (ctx, raw, [, id]) => {
        const p = params(raw, PI_CANCEL);
        const pi = getOr404(state.paymentIntents, "payment_intent", id!);
        const cancelable = ["requires_payment_method", "requires_capture", "requires_confirmation", "requires_action", "processing"];
        if (!cancelable.includes(pi.status)) {
          throw invalid(
            `You cannot cancel this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${cancelable.join(", ")}.`,
            { code: "payment_intent_unexpected_state" },
          );
        }
        pi.status = "canceled";
        pi.canceled_at = now();
        pi.cancellation_reason = p.cancellation_reason ?? null;
        pi.amount_capturable = 0;
        emit(state, ctx, "payment_intent.canceled", pi);
        return expand(state, pi, p.expand);
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^/v1/payment_intents/${ID}/capture$`),
      handler: (ctx, raw, [, id]) => {
        const p = params(raw, PI_CAPTURE);
        const pi = getOr404(state.paymentIntents, "payment_intent", id!);
        if (pi.status !== "requires_capture") {
          throw invalid(
            `This PaymentIntent could not be captured because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
            {
              code: "payment_intent_unexpected_state",
            },
          );
        }
        const amount = p.amount_to_capture ?? pi.amount;
        if (amount > pi.amount_capturable)
          throw invalid("The amount to capture is greater than the amount capturable.", {
            param: "amount_to_capture",
            code: "amount_too_large",
          });
        const charge = state.charges.get(pi.latest_charge)!;
        charge.captured = true;
        charge.amount_captured = amount;
        charge.balance_transaction = newId("txn");
        pi.amount_received = amount;
        pi.amount_capturable = 0;
        pi.status = "succeeded";
        if ("metadata" in p) pi.metadata = mergeMetadata(pi.metadata, p.metadata);
        emit(state, ctx, "payment_intent.succeeded", pi);
        return expand(state, pi, p.expand);
      },
    },
    // Charges and refunds
    {
      method: "GET",
      pattern: new RegExp(`^/v1/charges/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        return expand(state, getOr404(state.charges, "charge", id!), p.expand);
      },
    },
    {
      method: "POST",
      pattern: /^\/v1\/refunds$/,
      handler: (ctx, raw) => {
        const p = params(raw, REFUND_CREATE);
        if (!p.payment_intent && !p.charge) {
          throw invalid("One of the following params should be provided for this request: payment_intent or charge.", {
            code: "parameter_missing",
            param: "payment_intent",
          });
        }
        let pi: Obj | undefined;
        let charge: Obj | undefined;
        if (p.payment_intent) {
          pi = state.paymentIntents.get(p.payment_intent);
          if (!pi) throw noSuch("payment_intent", p.payment_intent, "payment_intent");
          if (pi.status !== "succeeded") {
            throw invalid(`This PaymentIntent (${pi.id}) does not have a successful charge to refund.`, {
              param: "payment_intent",
              code: "charge_not_refundable",
            });
          }
          charge = state.charges.get(pi.latest_charge);
        } else {
          charge = state.charges.get(p.charge);
          if (!charge) throw noSuch("charge", p.charge, "charge");
          if (!charge.captured || charge.status !== "succeeded")
            throw invalid(`Charge ${charge.id} cannot be refunded because it has not succeeded.`, {
              param: "charge",
              code: "charge_not_refundable",
            });
          pi = state.paymentIntents.get(charge.payment_intent);
        }
        if (!charge)
          throw invalid("This PaymentIntent does not have a successful charge to refund.", {
            param: "payment_intent",
            code: "charge_not_refundable",
          });
        const remaining = charge.amount_captured - charge.amount_refunded;
        if (remaining <= 0) throw invalid(`Charge ${charge.id} has already been refunded.`, { code: "charge_already_refunded" });
        const amount = p.amount ?? remaining;
        if (amount <= 0) throw invalid("Refund amount must be a positive integer.", { param: "amount" });
        if (amount > remaining) {
          throw invalid(
            `Refund amount (${formatAmount(amount, charge.currency)}) is greater than unrefunded amount on charge (${formatAmount(remaining, charge.currency)})`,
            { param: "amount", code: "amount_too_large" },
          );
        }
        const before = clone(charge);
        const refund = store(state, state.refunds, {
          id: newId("re"),
          object: "refund",
          amount,
          balance_transaction: newId("txn"),
          charge: charge.id,
          created: now(),
          currency: charge.currency,
          destination_details: {
            card: { reference_status: "pending", reference_type: "acquirer_reference_number", type: "refund" },
            type: "card",
          },
          metadata: mergeMetadata({}, p.metadata),
          payment_intent: pi?.id ?? null,
          reason: p.reason ?? null,
          receipt_number: null,
          source_transfer_reversal: null,
          status: "succeeded",
          transfer_reversal: null,
        });
        charge.amount_refunded += amount;
        charge.refunded = charge.amount_refunded >= charge.amount_captured;
        emit(state, ctx, "refund.created", refund);
        emit(state, ctx, "charge.refunded", charge, diff(before, charge));
        return expand(state, refund, p.expand);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/refunds/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        return expand(state, getOr404(state.refunds, "refund", id!), p.expand);
      },
    },
    // Checkout
    {
      method: "POST",
      pattern: /^\/v1\/checkout\/sessions$/,
      handler: (_ctx, raw) => {
        const p = params(raw, CHECKOUT_CREATE);
        return expand(state, createCheckoutSession(state, p), p.expand);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/checkout/sessions/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        return expand(state, getOr404(state.checkoutSessions, "checkout.session", id!), p.expand);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/checkout/sessions/${ID}/line_items$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, LIST);
        getOr404(state.checkoutSessions, "checkout.session", id!);
        return expand(state, list(clone(state.lineItemsOf.get(id!) ?? []), `/v1/checkout/sessions/${id}/line_items`, p), p.expand);
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^/v1/checkout/sessions/${ID}/expire$`),
      handler: (ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        const session = getOr404(state.checkoutSessions, "checkout.session", id!);
        if (session.status !== "open")
          throw invalid(
            `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${session.status}".`,
          );
        session.status = "expired";
        session.url = null;
        emit(state, ctx, "checkout.session.expired", session);
        return expand(state, session, p.expand);
      },
    },
    // Products and prices
    {
      method: "POST",
      pattern: /^\/v1\/products$/,
      handler: (_ctx, raw) => {
        const p = params(raw, PRODUCT_CREATE, ["name"]);
        const product = createProduct(state, p);
        if (p.default_price_data) {
          const price = createPrice(state, { ...p.default_price_data, product: product.id }, "default_price_data");
          product.default_price = price.id;
        }
        return expand(state, product, p.expand);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/products/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        return expand(state, getOr404(state.products, "product", id!), p.expand);
      },
    },
    {
      method: "POST",
      pattern: /^\/v1\/prices$/,
      handler: (_ctx, raw) => {
        const p = params(raw, PRICE_CREATE, ["currency"]);
        return expand(state, createPrice(state, p), p.expand);
      },
    },
    {
      method: "GET",
      pattern: /^\/v1\/prices$/,
      handler: (_ctx, raw) => {
        const p = params(raw, PRICE_LIST);
        let found = [...state.prices.values()];
        if (p.active !== undefined && p.active !== null) found = found.filter((price) => price.active === p.active);
        if (p.lookup_keys) found = found.filter((price) => (p.lookup_keys as string[]).includes(price.lookup_key));
        if (p.product) found = found.filter((price) => price.product === p.product);
        if (p.currency) found = found.filter((price) => price.currency === String(p.currency).toLowerCase());
        if (p.type) found = found.filter((price) => price.type === p.type);
        if (p.recurring?.interval) found = found.filter((price) => price.recurring?.interval === p.recurring.interval);
        if (p.recurring?.usage_type) found = found.filter((price) => price.recurring?.usage_type === p.recurring.usage_type);
        if (p.recurring?.meter) found = found.filter((price) => price.recurring?.meter === p.recurring.meter);
        return expand(state, list(clone(found.sort(newestFirst)), "/v1/prices", p), p.expand);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/prices/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        return expand(state, getOr404(state.prices, "price", id!), p.expand);
      },
    },
    // Billing meters
    {
      method: "POST",
      pattern: /^\/v1\/billing\/meters$/,
      handler: (_ctx, raw) => {
        const p = params(raw, METER_CREATE, ["default_aggregation", "display_name", "event_name"]);
        if ([...state.meters.values()].some((m) => m.event_name === p.event_name && m.status === "active")) {
          throw invalid(`An active meter with event name \`${p.event_name}\` already exists.`, { param: "event_name" });
        }
        const t = now();
        const meter = store(state, state.meters, {
          id: newId("mtr"),
          object: "billing.meter",
          created: t,
          customer_mapping: { event_payload_key: p.customer_mapping?.event_payload_key ?? "stripe_customer_id", type: "by_id" },
          default_aggregation: { formula: p.default_aggregation.formula },
          display_name: p.display_name,
          event_name: p.event_name,
          event_time_window: p.event_time_window ?? null,
          livemode: false,
          status: "active",
          status_transitions: { deactivated_at: null },
          updated: t,
          value_settings: { event_payload_key: p.value_settings?.event_payload_key ?? "value" },
        });
        return expand(state, meter, p.expand);
      },
    },
    {
      method: "GET",
      pattern: /^\/v1\/billing\/meters$/,
      handler: (_ctx, raw) => {
        const p = params(raw, METER_LIST);
        const found = [...state.meters.values()].filter((m) => !p.status || m.status === p.status).sort(newestFirst);
        return expand(state, list(clone(found), "/v1/billing/meters", p), p.expand);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/billing/meters/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        return expand(state, getOr404(state.meters, "billing.meter", id!), p.expand);
      },
    },
    {
      method: "POST",
      pattern: /^\/v1\/billing\/meter_events$/,
      handler: (_ctx, raw) => {
        const p = params(raw, METER_EVENT_CREATE, ["event_name", "payload"]);
        return expand(state, recordMeterEvent(state, p), p.expand);
      },
    },
    // Subscriptions and invoices
    {
      method: "POST",
      pattern: /^\/v1\/subscriptions$/,
      handler: (ctx, raw) => {
        const p = params(raw, SUB_CREATE);
        const expansion = p.expand;
        validateExpansion("subscription", expansion);
        const sub = newSubscription(state, ctx, p);
        return expand(state, sub, expansion);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/subscriptions/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        return expand(state, getOr404(state.subscriptions, "subscription", id!), p.expand);
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^/v1/subscriptions/${ID}$`),
      handler: (ctx, raw, [, id]) => {
        const p = params(raw, SUB_UPDATE);
        const sub = getOr404(state.subscriptions, "subscription", id!);
        validateExpansion("subscription", p.expand);
        return expand(state, updateSubscription(state, ctx, sub, p), p.expand);
      },
    },
    {
      method: "DELETE",
      pattern: new RegExp(`^/v1/subscriptions/${ID}$`),
      handler: (ctx, raw, [, id]) => {
        const p = params(raw, SUB_CANCEL);
        const sub = getOr404(state.subscriptions, "subscription", id!);
        validateExpansion("subscription", p.expand);
        return expand(state, cancelSubscription(state, ctx, sub, p), p.expand);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/invoices/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        return expand(state, getOr404(state.invoices, "invoice", id!), p.expand);
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^/v1/invoices/${ID}/pay$`),
      handler: (ctx, raw, [, id]) => {
        const p = params(raw, INVOICE_PAY);
        const invoice = getOr404(state.invoices, "invoice", id!);
        return expand(state, payInvoice(state, ctx, invoice, p), p.expand);
      },
    },
    // Setup intents
    {
      method: "GET",
      pattern: new RegExp(`^/v1/setup_intents/${ID}$`),
      publishable: true,
      handler: (ctx, raw, [, id]) => {
        const p = params(raw, SI_RETRIEVE);
        const si = setupIntentForKey(state, ctx, id!, p);
        return ctx.auth === "publishable" ? publicSetupIntent(si) : expand(state, si, p.expand);
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^/v1/setup_intents/${ID}/confirm$`),
      publishable: true,
      handler: (ctx, raw, [, id]) => {
        const p = params(raw, ctx.auth === "publishable" ? SI_CONFIRM_PUBLISHABLE : SI_CONFIRM);
        const si = setupIntentForKey(state, ctx, id!, p);
        try {
          confirmSetupIntent(state, ctx, si, p);
        } catch (error) {
          // A publishable key sees the redacted SetupIntent in a card error too.
          if (error instanceof ApiError && error.error.setup_intent && ctx.auth === "publishable")
            error.error.setup_intent = publicSetupIntent(si);
          throw error;
        }
        return ctx.auth === "publishable" ? publicSetupIntent(si) : expand(state, si, p.expand);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/events/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        params(raw, EXPAND_ONLY);
        const event = state.events.find((e) => e.id === id);
        if (!event) throw noSuch("event", id!);
        return clone(event);
      },
    },
  ];
}
