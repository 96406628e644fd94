/**
 * A fake Stripe API for tests: a node:http server that the real `stripe` SDK talks to through
 * configuration only, `new Stripe(key, { host: "127.0.0.1", port, protocol: "http" })`, and that
 * answers as Stripe's API version 2026-10-28.endive does, errors included. Code that only works
 * against a lenient fake must fail here too.
 *
 *   const fake = await startFakeStripe();            // { secretKey: "sk_test_fake", publishableKey: "pk_test_fake" }
 *   fake.url        http://127.0.0.1:PORT  (STRIPE_API_URL)
 *   fake.jsUrl      `${url}/v3/`, the Stripe.js stand-in (STRIPE_JS_URL), see ./stripe-js.ts
 *   fake.requests   every API request: { method, path, body (form body or query, parsed), idempotencyKey, auth }
 *   fake.paymentIntents, customers, checkoutSessions, subscriptions, refunds, prices, products,
 *        meters, meterEvents (by identifier), charges, invoices, paymentMethods, setupIntents: Map<id, object>
 *   fake.events     every event created, oldest first; fake.lastEvent(type) the newest of a type
 *   fake.setWebhook(url, secret)   add a webhook endpoint (same url again replaces its secret)
 *   fake.deliveries { eventId, type, url, status } per delivery attempt (status 0: no HTTP answer)
 *   fake.resend(eventId)           deliver an event again (a replay), newly signed; the first endpoint's status
 *   fake.flush()                   wait until every queued webhook delivery has been attempted
 *   fake.failNext({ method, pathPrefix }, status, { type, message, code? }, times = 1)
 *                                  the next N matching requests get that Stripe error (500 api_error,
 *                                  429 rate_limit_error…); like Stripe, such a failure is not kept for
 *                                  idempotent replay, so a retry with the same key runs for real
 *   fake.seedPaymentIntent({ amount, currency, status, metadata, customer })   a PaymentIntent in any state
 *   fake.meterEventErrors          problems Stripe reports asynchronously about meter events
 *                                  (no meter for event_name, unknown customer, bad value)
 *   fake.advanceSubscription(id)   the subscription's current period ends now, as a test clock
 *                                  reaching it would (see Subscriptions below); returns the subscription
 *   fake.trialWillEnd(id)          sends customer.subscription.trial_will_end for a trialing
 *                                  subscription (Stripe sends it 3 days before trial_end); returns the event
 *   fake.close()
 *
 * What it checks, like Stripe: the API key (401; a publishable key may only retrieve/confirm a
 * PaymentIntent or a SetupIntent with its client_secret, and sees the redacted object), an allow-list of parameters
 * per endpoint (400 parameter_unknown, e.g. `payment_method_types`, removed in this API version:
 * use `allowed_payment_method_types`), required parameters (parameter_missing), types and enums,
 * unknown ids (404 resource_missing for ids in the URL, 400 with `param` for ids in parameters),
 * expansions (`latest_invoice.payment_intent` is refused, `latest_invoice.confirmation_secret`
 * works), state transitions, Idempotency-Key replay (same key and parameters: the first response
 * again, with `Idempotent-Replayed: true`; other parameters: 400 idempotency_error), raw card
 * numbers sent with a secret key, a `return_url` on server-side confirmation of a PaymentIntent with
 * automatic payment methods that allow redirects, reuse of an unattached PaymentMethod, duplicate
 * meter event identifiers. Responses carry Request-Id and Stripe-Version.
 *
 * Payments: card numbers 4242424242424242 (and other Stripe test cards such as 5555555555554444)
 * succeed, 4000000000000002 declines (generic_decline), 4000000000009995 declines
 * (insufficient_funds), 4000000000000069 expired_card, 4000000000000127 incorrect_cvc. Test
 * PaymentMethods pm_card_visa, pm_card_mastercard, pm_card_chargeDeclined,
 * pm_card_chargeDeclinedInsufficientFunds… create a new PaymentMethod each time they are used.
 * A decline answers 402 card_error and leaves the PaymentIntent in requires_payment_method with
 * last_payment_error. 4000000000000341 (pm_card_chargeCustomerFail) is saved fine (SetupIntent,
 * Checkout setup mode, a trial) but every charge of it is declined. No 3-D Secure.
 *
 * SetupIntents: `POST /v1/setup_intents/:id/confirm` with `payment_method` (secret key) or, from
 * Stripe.js (publishable key + client_secret), `payment_method_data[card][number]`; a refused card
 * is a 402 card_error (with `setup_intent`), the SetupIntent stays requires_payment_method with
 * last_setup_error (setup_intent.setup_failed). On success the card is attached to the
 * SetupIntent's customer (setup_intent.succeeded). `GET /v1/setup_intents/:id` as for PaymentIntents.
 *
 * Subscriptions: a subscription with nothing to pay now (a trial) and no payment method (neither its
 * own nor the customer's invoice_settings.default_payment_method), created with
 * `payment_behavior=default_incomplete`, gets a `pending_setup_intent` (usage off_session, for the
 * customer; `expand[]=pending_setup_intent`). When it succeeds, pending_setup_intent becomes null
 * and, with `payment_settings[save_default_payment_method]=on_subscription`, the card becomes the
 * subscription's default_payment_method (customer.subscription.updated); on_subscription does the
 * same for the card that pays an invoice. `cancel_at_period_end=true` sets cancel_at (the period's
 * end) and canceled_at (the request's time); `trial_end=now` ends the trial: a full period starts
 * now and its invoice (billing_reason subscription_update) is charged to the default payment method
 * (the subscription's, else the customer's); a decline or no card leaves it past_due
 * (invoice.payment_failed). `DELETE` cancels at once. An update that changes nothing sends no event.
 * `fake.advanceSubscription(id)`: a subscription set to cancel at the period's end is canceled
 * (ended_at, customer.subscription.deleted); otherwise a trial ends now (trial_end = now, a first
 * period from now) or the items' current period moves one interval on, and an invoice for the new
 * period (billing_reason subscription_cycle) is charged like trial_end=now: invoice.paid and active,
 * or invoice.payment_failed and past_due; then one customer.subscription.updated with
 * previous_attributes. The fake has no clock: after a renewal the period lies in the future.
 * A renewal bills metered items in arrears: the values of their meter's events for the customer
 * not billed yet, through the price (tiered graduated or per unit); a trial's end bills no usage.
 * `POST /v1/invoices/:id/pay` (optional `payment_method`, which must be the customer's) charges an
 * open invoice: invoice.paid, and a past_due subscription whose latest invoice it is becomes active;
 * a decline answers 402 card_error (invoice.payment_failed); a paid one 400 "Invoice is already paid".
 * Checkout in setup mode requires `currency` unless `allowed_payment_method_types` is given.
 *
 * Hosted Checkout: `session.url` is `${url}/checkout/${id}`, an HTML page without JavaScript
 * (Email, "Card number" prefilled with 4242 4242 4242 4242, "Pay" — "Save card" in setup mode —
 * and a "Cancel" link to cancel_url). Posting it pays (the PaymentIntent is created then, with
 * payment_intent_data), creates the subscription or the SetupIntent, completes the session, sends
 * the webhooks and 303-redirects to success_url with {CHECKOUT_SESSION_ID} filled in.
 *
 * Events sent: payment_intent.succeeded, payment_intent.payment_failed, payment_intent.canceled,
 * payment_intent.amount_capturable_updated, charge.refunded, refund.created,
 * checkout.session.completed, checkout.session.expired, customer.subscription.created|updated|deleted,
 * customer.subscription.trial_will_end (fake.trialWillEnd), setup_intent.succeeded,
 * setup_intent.setup_failed, invoice.paid, invoice.payment_failed. Each is signed like Stripe's
 * (Stripe-Signature t=…,v1=…) for every endpoint, posted after the API response has gone out, one
 * after the other; a failed delivery is recorded, never retried by itself (use resend). The events
 * of fake.advanceSubscription and fake.trialWillEnd have `request.id` null, as Stripe's own billing's do.
 *
 * Not modelled: 3-D Secure, disputes, payouts, Connect, taxes, coupons, prorations (accepted, ignored),
 * list pagination beyond `limit`, the real 24 h expiry of idempotency keys, Smart Retries (a
 * past_due invoice is only charged again by invoices.pay), invoice.created/finalized,
 * payment_method.attached and *.created events, SetupIntent create/update/cancel endpoints.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { stripeJsSource } from "../stripe-js";
import { ApiError, docUrl, invalid, noSuch, describe, bad, params } from "./validation";
import {
  CUSTOMER_CREATE,
  CUSTOMER_UPDATE,
  PI_CREATE,
  PI_UPDATE,
  PI_CONFIRM,
  PI_CONFIRM_PUBLISHABLE,
  PI_RETRIEVE,
  PI_CANCEL,
  PI_CAPTURE,
  REFUND_CREATE,
  EXPAND_ONLY,
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
  SI_CONFIRM,
  SI_CONFIRM_PUBLISHABLE,
  SI_RETRIEVE,
  INVOICE_PAY,
  PM_ATTACH,
} from "./params";
import { TEST_PAYMENT_METHODS, cardBehavior } from "./cards";
import {
  random,
  newId,
  now,
  clone,
  mergeMetadata,
  MINIMUM_CHARGE,
  formatAmount,
  checkCurrency,
  addInterval,
  escapeHtml,
  redactKey,
  diff,
  list,
  newestFirst,
  readBody,
  parseForm,
  PUBLIC_PI_FIELDS,
  PUBLIC_SI_FIELDS,
  type Ctx,
  type Route,
} from "./objects";
import type { Obj } from "./types";

export const FAKE_STRIPE_API_VERSION = "2026-10-28.endive";

export interface FakeStripeRequest {
  method: string;
  path: string;
  body: Record<string, unknown>;
  idempotencyKey?: string;
  auth: "secret" | "publishable" | "none" | "invalid";
}

export interface FakeStripeDelivery {
  eventId: string;
  type: string;
  url: string;
  status: number;
}

export interface FakeStripeErrorBody {
  type: string;
  message: string;
  code?: string;
}

export interface FakeStripe {
  url: string;
  secretKey: string;
  publishableKey: string;
  jsUrl: string;
  requests: FakeStripeRequest[];
  customers: Map<string, Obj>;
  paymentIntents: Map<string, Obj>;
  paymentMethods: Map<string, Obj>;
  charges: Map<string, Obj>;
  refunds: Map<string, Obj>;
  checkoutSessions: Map<string, Obj>;
  setupIntents: Map<string, Obj>;
  products: Map<string, Obj>;
  prices: Map<string, Obj>;
  meters: Map<string, Obj>;
  /** Keyed by the event's identifier. */
  meterEvents: Map<string, Obj>;
  meterEventErrors: { identifier: string; code: string; message: string }[];
  subscriptions: Map<string, Obj>;
  invoices: Map<string, Obj>;
  events: Obj[];
  lastEvent(type: string): Obj | undefined;
  setWebhook(url: string, secret: string): void;
  deliveries: FakeStripeDelivery[];
  resend(eventId: string): Promise<number>;
  flush(): Promise<void>;
  failNext(match: { method: string; pathPrefix: string }, status: number, error: FakeStripeErrorBody, times?: number): void;
  seedPaymentIntent(
    fields: Partial<{ amount: number; currency: string; status: string; metadata: Record<string, string>; customer: string }>,
  ): Obj;
  /**
   * Ends the subscription's current period now, as a test clock reaching it would: a subscription
   * set to cancel then is canceled; otherwise the next period's invoice is created and charged.
   * Returns the subscription as it is afterwards.
   */
  advanceSubscription(subscriptionId: string): Obj;
  /** Sends customer.subscription.trial_will_end (Stripe sends it three days before trial_end); returns the event. */
  trialWillEnd(subscriptionId: string): Obj;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------

export async function startFakeStripe(options: { secretKey?: string; publishableKey?: string } = {}): Promise<FakeStripe> {
  const secretKey = options.secretKey ?? "sk_test_fake";
  const publishableKey = options.publishableKey ?? "pk_test_fake";
  const signer = new Stripe("sk_test_x");

  const customers = new Map<string, Obj>();
  const paymentIntents = new Map<string, Obj>();
  const paymentMethods = new Map<string, Obj>();
  const charges = new Map<string, Obj>();
  const refunds = new Map<string, Obj>();
  const checkoutSessions = new Map<string, Obj>();
  const setupIntents = new Map<string, Obj>();
  const products = new Map<string, Obj>();
  const prices = new Map<string, Obj>();
  const meters = new Map<string, Obj>();
  const meterEvents = new Map<string, Obj>();
  const meterEventErrors: FakeStripe["meterEventErrors"] = [];
  const subscriptions = new Map<string, Obj>();
  const invoices = new Map<string, Obj>();
  const events: Obj[] = [];
  const requests: FakeStripeRequest[] = [];
  const deliveries: FakeStripeDelivery[] = [];
  const webhooks: { url: string; secret: string }[] = [];
  const failures: { method: string; pathPrefix: string; status: number; error: FakeStripeErrorBody; remaining: number }[] = [];
  const idempotent = new Map<string, { fingerprint: string; status: number; body: string; requestId: string }>();

  // Internal links that are not fields of the objects.
  const cardNumberOf = new Map<string, string>(); // pm id → card number
  const usedPaymentMethods = new Set<string>();
  const invoiceOfIntent = new Map<string, string>(); // pi id → invoice id
  const confirmationSecretOf = new Map<string, Obj>(); // invoice id → { client_secret, type }
  const lineItemsOf = new Map<string, Obj[]>(); // checkout session id → line items
  const intentOfSession = new Map<string, string>();
  const subscriptionOfSetupIntent = new Map<string, string>(); // seti id → sub id (pending_setup_intent)
  /** A subscription whose billing change sends one customer.subscription.updated for all its effects. */
  let quietSubscription: string | null = null;
  const meterEventTimes = new Map<string, number>();
  /** Meter events already on an invoice (or in a trial, which bills no usage), by identifier. */
  const billedMeterEvents = new Set<string>();
  let seq = 0;
  let closed = false;
  let deliveryChain: Promise<void> = Promise.resolve();
  const inflight = new Set<AbortController>();

  let origin = "";

  function store<T extends Obj>(map: Map<string, Obj>, object: T): T {
    Object.defineProperty(object, "_seq", { value: ++seq, enumerable: false, writable: true });
    map.set(object.id, object);
    return object;
  }

  // ------------------------------------------------------------------ events and webhooks

  function emit(ctx: Ctx | null, type: string, object: Obj, previous?: Obj): Obj {
    const event: Obj = {
      id: newId("evt"),
      object: "event",
      api_version: FAKE_STRIPE_API_VERSION,
      created: now(),
      data:
        previous && Object.keys(previous).length > 0 ? { object: clone(object), previous_attributes: previous } : { object: clone(object) },
      livemode: false,
      pending_webhooks: webhooks.length,
      request: { id: ctx?.requestId ?? null, idempotency_key: ctx?.idempotencyKey ?? null },
      type,
    };
    events.push(event);
    if (ctx) ctx.events.push(event);
    else queueDeliveries([event]);
    return event;
  }

  async function deliver(event: Obj, target: { url: string; secret: string }): Promise<number> {
    const payload = JSON.stringify(event, null, 2);
    const header = signer.webhooks.generateTestHeaderString({ payload, secret: target.secret });
    const controller = new AbortController();
    inflight.add(controller);
    const timer = setTimeout(() => controller.abort(), 10_000);
    let status = 0;
    try {
      const response = await fetch(target.url, {
        method: "POST",
        headers: {
          "content-type": "application/json; charset=utf-8",
          "stripe-signature": header,
          "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
        },
        body: payload,
        signal: controller.signal,
      });
      status = response.status;
      await response.arrayBuffer().catch(() => undefined);
    } catch {
      status = 0;
    } finally {
      clearTimeout(timer);
      inflight.delete(controller);
    }
    deliveries.push({ eventId: event.id, type: event.type, url: target.url, status });
    return status;
  }

  function queueDeliveries(batch: Obj[]) {
    if (batch.length === 0) return;
    deliveryChain = deliveryChain.then(async () => {
      for (const event of batch) {
        for (const target of [...webhooks]) {
          if (closed) return;
          await deliver(event, target);
        }
      }
    });
  }

  // ------------------------------------------------------------------ expansion

  const expanders: Record<string, Record<string, (value: unknown, parent: Obj) => unknown>> = {
    payment_intent: {
      customer: (v) => lookup(customers, v),
      payment_method: (v) => lookup(paymentMethods, v),
      latest_charge: (v) => lookup(charges, v),
    },
    charge: { customer: (v) => lookup(customers, v), payment_intent: (v) => lookup(paymentIntents, v) },
    refund: { charge: (v) => lookup(charges, v), payment_intent: (v) => lookup(paymentIntents, v) },
    customer: {},
    "customer.invoice_settings": { default_payment_method: (v) => lookup(paymentMethods, v) },
    "checkout.session": {
      customer: (v) => lookup(customers, v),
      payment_intent: (v) => lookup(paymentIntents, v),
      subscription: (v) => lookup(subscriptions, v),
      setup_intent: (v) => lookup(setupIntents, v),
      invoice: (v) => lookup(invoices, v),
      line_items: (_v, parent) => list(clone(lineItemsOf.get(parent.id) ?? []), `/v1/checkout/sessions/${parent.id}/line_items`, 100),
    },
    subscription: {
      customer: (v) => lookup(customers, v),
      latest_invoice: (v) => lookup(invoices, v),
      default_payment_method: (v) => lookup(paymentMethods, v),
      pending_setup_intent: (v) => lookup(setupIntents, v),
    },
    invoice: {
      customer: (v) => lookup(customers, v),
      default_payment_method: (v) => lookup(paymentMethods, v),
      confirmation_secret: (_v, parent) => clone(confirmationSecretOf.get(parent.id) ?? null),
    },
    price: { product: (v) => lookup(products, v) },
    payment_method: { customer: (v) => lookup(customers, v) },
    setup_intent: { customer: (v) => lookup(customers, v), payment_method: (v) => lookup(paymentMethods, v) },
    subscription_item: {},
    "billing.meter": {},
    "billing.meter_event": {},
    product: {},
    list: {},
  };

  function lookup(map: Map<string, Obj>, value: unknown) {
    if (typeof value !== "string") return value;
    return clone(map.get(value) ?? value);
  }

  function expandAt(target: unknown, parts: string[], full: string, typeKey?: string) {
    if (!target || typeof target !== "object") return;
    const obj = target as Obj;
    const [head, ...rest] = parts;
    if (head === undefined) return;
    const type = typeof obj.object === "string" ? obj.object : typeKey;
    if (obj.object === "list" && head === "data") {
      if (rest.length === 0) throw invalid(`This property cannot be expanded (${full}).`, { param: "expand" });
      for (const item of obj.data as Obj[]) expandAt(item, rest, full);
      return;
    }
    const expander = type ? expanders[type]?.[head] : undefined;
    if (expander) {
      obj[head] = expander(obj[head], obj);
      expandAt(obj[head], rest, full);
      return;
    }
    if (rest.length > 0 && obj[head] && typeof obj[head] === "object") {
      expandAt(obj[head], rest, full, type ? `${type}.${head}` : undefined);
      return;
    }
    throw invalid(`This property cannot be expanded (${full}).`, { param: "expand" });
  }

  function expand<T extends Obj>(object: T, paths: unknown, prefix = ""): T {
    const out = clone(object);
    for (const path of (paths as string[] | null | undefined) ?? []) {
      const parts = path.split(".");
      if (parts.length > 4) throw invalid(`You cannot expand more than 4 levels of a property. Property: ${path}`, { param: "expand" });
      expandAt(out, prefix ? [prefix, ...parts] : parts, path);
    }
    return out;
  }

  // ------------------------------------------------------------------ customers and payment methods

  function getOr404(map: Map<string, Obj>, kind: string, id: string) {
    const found = map.get(id);
    if (!found) throw noSuch(kind, id);
    return found;
  }

  function customerParam(id: unknown, param = "customer") {
    if (id === undefined || id === null) return null;
    const found = customers.get(String(id));
    if (!found || found.deleted) throw noSuch("customer", String(id), param);
    return found;
  }

  function checkEmail(email: unknown) {
    if (typeof email === "string" && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
      throw invalid(`Invalid email address: ${email}`, { param: "email", code: "email_invalid" });
    }
  }

  function createPaymentMethod(number: string): Obj {
    const behavior = cardBehavior(number);
    const year = new Date().getUTCFullYear() + 3;
    const pm = store(paymentMethods, {
      id: newId("pm"),
      object: "payment_method",
      allow_redisplay: "unspecified",
      billing_details: {
        address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
        email: null,
        name: null,
        phone: null,
        tax_id: null,
      },
      card: {
        brand: behavior.brand,
        checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: "unchecked" },
        country: "US",
        display_brand: behavior.brand,
        exp_month: 12,
        exp_year: year,
        fingerprint: random(16),
        funding: behavior.funding,
        generated_from: null,
        last4: number.slice(-4),
        networks: { available: [behavior.brand], preferred: null },
        regulated_status: "unregulated",
        three_d_secure_usage: { supported: true },
        wallet: null,
      },
      created: now(),
      customer: null,
      customer_account: null,
      livemode: false,
      metadata: {},
      type: "card",
    });
    cardNumberOf.set(pm.id, number);
    return pm;
  }

  function resolvePaymentMethod(ref: string, param: string): Obj {
    const testCard = TEST_PAYMENT_METHODS[ref];
    if (testCard) return createPaymentMethod(testCard);
    const found = paymentMethods.get(ref);
    if (!found) throw invalid(`No such PaymentMethod: '${ref}'`, { code: "resource_missing", param });
    return found;
  }

  function attachPaymentMethod(pm: Obj, customer: Obj) {
    if (pm.customer && pm.customer !== customer.id) {
      throw invalid(`The payment method you provided has already been attached to a customer.`, { param: "payment_method" });
    }
    if (!pm.customer && usedPaymentMethods.has(pm.id)) {
      throw invalid(
        "This PaymentMethod was previously used without being attached to a Customer or was detached from a Customer, and may not be used again.",
        { param: "payment_method" },
      );
    }
    pm.customer = customer.id;
  }

  function paymentMethodOfCustomer(customer: Obj, id: string, param: string): Obj {
    const pm = TEST_PAYMENT_METHODS[id] ? undefined : paymentMethods.get(id);
    if (!pm || pm.customer !== customer.id) {
      throw invalid(`The customer does not have a payment method with the ID ${id}. The payment method must be attached to the customer.`, {
        param,
        code: "resource_missing",
      });
    }
    return pm;
  }

  function createCustomer(p: Obj): Obj {
    checkEmail(p.email);
    const customer = store(customers, {
      id: newId("cus"),
      object: "customer",
      address: p.address ?? null,
      balance: Number(p.balance ?? 0),
      created: now(),
      currency: null,
      customer_account: null,
      default_source: null,
      delinquent: false,
      description: p.description ?? null,
      discount: null,
      email: p.email ?? null,
      invoice_prefix: p.invoice_prefix ?? random(8, "ABCDEF0123456789"),
      invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
      livemode: false,
      metadata: mergeMetadata({}, p.metadata),
      name: p.name ?? null,
      next_invoice_sequence: 1,
      phone: p.phone ?? null,
      preferred_locales: p.preferred_locales ?? [],
      shipping: p.shipping ?? null,
      tax_exempt: p.tax_exempt ?? "none",
      test_clock: null,
    });
    return customer;
  }

  function updateCustomerFields(customer: Obj, p: Obj) {
    checkEmail(p.email);
    for (const key of ["description", "email", "name", "phone", "shipping", "address", "preferred_locales", "tax_exempt"]) {
      if (key in p) customer[key] = p[key];
    }
    if ("metadata" in p) customer.metadata = mergeMetadata(customer.metadata, p.metadata);
    if (p.invoice_settings) {
      const settings = p.invoice_settings as Obj;
      if ("default_payment_method" in settings) {
        customer.invoice_settings.default_payment_method =
          settings.default_payment_method === null
            ? null
            : paymentMethodOfCustomer(customer, settings.default_payment_method, "invoice_settings[default_payment_method]").id;
      }
      if ("footer" in settings) customer.invoice_settings.footer = settings.footer;
    }
  }

  // ------------------------------------------------------------------ payment intents

  function publicIntent(pi: Obj): Obj {
    const out: Obj = {};
    for (const key of PUBLIC_PI_FIELDS) if (key in pi) out[key] = clone(pi[key]);
    return out;
  }

  function newPaymentIntent(p: Obj): Obj {
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
    const customer = customerParam(p.customer);
    const automatic =
      p.automatic_payment_methods === undefined
        ? { allow_redirects: "always", enabled: true }
        : p.automatic_payment_methods === null || p.automatic_payment_methods.enabled === false
          ? null
          : { allow_redirects: p.automatic_payment_methods.allow_redirects ?? "always", enabled: true };
    const id = newId("pi");
    const allowed = (p.allowed_payment_method_types as string[] | undefined) ?? null;
    return store(paymentIntents, {
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

  const CONFIRMABLE = ["requires_payment_method", "requires_confirmation", "requires_action"];

  /** Parses what a confirmation pays with: a PaymentMethod id or (publishable key only) raw card data. */
  function paymentSource(ctx: Ctx, p: Obj): { pm?: Obj } {
    if (typeof p.payment_method === "string" && p.payment_method) {
      return { pm: resolvePaymentMethod(p.payment_method, "payment_method") };
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
      return { pm: createPaymentMethod(card.number.replace(/\D/g, "")) };
    }
    return {};
  }

  /** Charges a PaymentIntent with a PaymentMethod. Updates state and queues events; never throws for a decline. */
  function chargeIntent(ctx: Ctx | null, pi: Obj, pm: Obj): { ok: true } | { ok: false; error: Obj } {
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
    if (!pm.customer && usedPaymentMethods.has(pm.id)) {
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
    const behavior = cardBehavior(cardNumberOf.get(pm.id) ?? "");
    usedPaymentMethods.add(pm.id);
    const success = !behavior.decline;
    const manual = pi.capture_method === "manual";
    const charge = store(charges, {
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
      receipt_url: `${origin}/receipts/${pi.id}`,
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
      emit(ctx, "payment_intent.payment_failed", pi);
      const invoiceId = invoiceOfIntent.get(pi.id);
      if (invoiceId) invoicePaymentFailed(ctx, invoiceId);
      return { ok: false, error: { ...error, payment_intent: clone(pi) } };
    }
    pi.last_payment_error = null;
    pi.payment_method = pm.id;
    if (pi.setup_future_usage && pi.customer && !pm.customer) pm.customer = pi.customer;
    if (manual) {
      pi.status = "requires_capture";
      pi.amount_capturable = pi.amount;
      emit(ctx, "payment_intent.amount_capturable_updated", pi);
      return { ok: true };
    }
    pi.status = "succeeded";
    pi.amount_received = pi.amount;
    emit(ctx, "payment_intent.succeeded", pi);
    const invoiceId = invoiceOfIntent.get(pi.id);
    if (invoiceId) invoicePaid(ctx, invoiceId, pm.id);
    return { ok: true };
  }

  function confirmIntent(ctx: Ctx, pi: Obj, p: Obj): Obj {
    if (!CONFIRMABLE.includes(pi.status)) {
      throw invalid(
        `You cannot confirm this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be confirmed: ${CONFIRMABLE.join(", ")}.`,
        { code: "payment_intent_unexpected_state" },
      );
    }
    const offSession = p.off_session === true || p.off_session === "true" || p.off_session === "one_off" || p.off_session === "recurring";
    if (p.setup_future_usage !== undefined) pi.setup_future_usage = p.setup_future_usage;
    if (p.receipt_email !== undefined) pi.receipt_email = p.receipt_email;
    const source = paymentSource(ctx, p);
    const pm = source.pm ?? (pi.payment_method ? paymentMethods.get(pi.payment_method) : undefined);
    if (!pm) {
      throw invalid(
        "You cannot confirm this PaymentIntent because it's missing a payment method. You can either update the PaymentIntent with a payment method and then confirm it again, or confirm it again directly with a payment method.",
        { code: "payment_intent_unexpected_state" },
      );
    }
    const apm = pi.automatic_payment_methods as Obj | null;
    const cardOnly = Array.isArray(pi.allowed_payment_method_types) && pi.allowed_payment_method_types.every((t: string) => t === "card");
    if (ctx.auth === "secret" && apm?.enabled && apm.allow_redirects !== "never" && !offSession && !p.return_url && !cardOnly) {
      throw invalid(
        "This PaymentIntent is configured to accept payment methods enabled in your Dashboard. Because some of these payment methods might redirect your customer off of your page, you must provide a `return_url`. If you don't want to accept redirect-based payment methods, set `automatic_payment_methods[enabled]` to `true` and `automatic_payment_methods[allow_redirects]` to `never` when creating Setup Intents and Payment Intents.",
      );
    }
    const result = chargeIntent(ctx, pi, pm);
    if (!result.ok) throw new ApiError(402, result.error);
    return pi;
  }

  function intentForKey(ctx: Ctx, id: string, p: Obj): Obj {
    const pi = paymentIntents.get(id);
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

  // ------------------------------------------------------------------ setup intents

  function newSetupIntent(fields: { customer: string | null; description?: string | null; metadata?: unknown }): Obj {
    const id = newId("seti");
    return store(setupIntents, {
      id,
      object: "setup_intent",
      allowed_payment_method_types: null,
      application: null,
      automatic_payment_methods: null,
      cancellation_reason: null,
      client_secret: `${id}_secret_${random(25)}`,
      created: now(),
      customer: fields.customer,
      customer_account: null,
      description: fields.description ?? null,
      excluded_payment_method_types: null,
      flow_directions: null,
      last_setup_error: null,
      latest_attempt: null,
      livemode: false,
      mandate: null,
      metadata: mergeMetadata({}, fields.metadata),
      next_action: null,
      on_behalf_of: null,
      payment_method: null,
      payment_method_configuration_details: null,
      payment_method_options: { card: { mandate_options: null, network: null, request_three_d_secure: "automatic" } },
      payment_method_types: ["card"],
      single_use_mandate: null,
      status: "requires_payment_method",
      usage: "off_session",
    });
  }

  function publicSetupIntent(si: Obj): Obj {
    const out: Obj = {};
    for (const key of PUBLIC_SI_FIELDS) if (key in si) out[key] = clone(si[key]);
    return out;
  }

  function setupIntentForKey(ctx: Ctx, id: string, p: Obj): Obj {
    const si = setupIntents.get(id);
    if (ctx.auth === "publishable") {
      if (typeof p.client_secret !== "string") {
        throw invalid("This API call cannot be made with a publishable API key without the SetupIntent's client_secret.", {
          param: "client_secret",
          code: "parameter_missing",
        });
      }
      if (!si || si.client_secret !== p.client_secret) throw noSuch("setup_intent", id);
      return si;
    }
    if (!si) throw noSuch("setup_intent", id);
    return si;
  }

  /**
   * Saves a card with a SetupIntent: on success the card is attached to the SetupIntent's customer
   * and a subscription waiting on it (pending_setup_intent) takes it as its default payment method
   * when its payment_settings say on_subscription. A refused card never throws here.
   */
  function setupWith(ctx: Ctx | null, si: Obj, pm: Obj): { ok: true } | { ok: false; error: Obj } {
    if (pm.customer && si.customer && pm.customer !== si.customer) {
      throw invalid(
        `The provided PaymentMethod belongs to a different Customer (${pm.customer}) than the one on this SetupIntent (${si.customer}).`,
        { param: "payment_method" },
      );
    }
    if (!pm.customer && usedPaymentMethods.has(pm.id)) {
      throw invalid(
        "The provided PaymentMethod was previously used with a PaymentIntent without Customer attachment, shared with a connected account without Customer attachment, or was detached from a Customer. It may not be used again. To use a PaymentMethod multiple times, you must attach it to a Customer first.",
        { param: "payment_method" },
      );
    }
    const behavior = cardBehavior(cardNumberOf.get(pm.id) ?? "");
    si.latest_attempt = newId("setatt");
    if (behavior.decline && !behavior.setupSucceeds) {
      usedPaymentMethods.add(pm.id);
      const decline = behavior.decline;
      const error: Obj = {
        type: "card_error",
        code: decline.code,
        ...(decline.decline_code ? { decline_code: decline.decline_code } : {}),
        doc_url: docUrl(decline.code),
        message: decline.message,
        payment_method: clone(pm),
      };
      si.last_setup_error = error;
      si.payment_method = null;
      si.status = "requires_payment_method";
      emit(ctx, "setup_intent.setup_failed", si);
      return { ok: false, error: { ...error, setup_intent: clone(si) } };
    }
    if (si.customer && !pm.customer) pm.customer = si.customer;
    si.last_setup_error = null;
    si.payment_method = pm.id;
    si.status = "succeeded";
    emit(ctx, "setup_intent.succeeded", si);
    const sub = subscriptions.get(subscriptionOfSetupIntent.get(si.id) ?? "");
    if (sub && sub.pending_setup_intent === si.id && sub.status !== "canceled") {
      const before = clone(sub);
      sub.pending_setup_intent = null;
      if (sub.payment_settings.save_default_payment_method === "on_subscription") sub.default_payment_method = pm.id;
      emit(ctx, "customer.subscription.updated", sub, diff(before, sub));
    }
    return { ok: true };
  }

  function confirmSetupIntent(ctx: Ctx, si: Obj, p: Obj): Obj {
    if (!CONFIRMABLE.includes(si.status)) {
      throw invalid(
        `You cannot confirm this SetupIntent because it has a status of ${si.status}. Only a SetupIntent with one of the following statuses may be confirmed: ${CONFIRMABLE.join(", ")}.`,
        { code: "setup_intent_unexpected_state" },
      );
    }
    const source = paymentSource(ctx, p);
    const pm = source.pm ?? (si.payment_method ? paymentMethods.get(si.payment_method) : undefined);
    if (!pm) {
      throw invalid(
        "You cannot confirm this SetupIntent because it's missing a payment method. You can either update the SetupIntent with a payment method and then confirm it again, or confirm it again directly with a payment method.",
        { code: "setup_intent_unexpected_state" },
      );
    }
    const result = setupWith(ctx, si, pm);
    if (!result.ok) throw new ApiError(402, result.error);
    return si;
  }

  // ------------------------------------------------------------------ prices, products

  function createProduct(p: Obj): Obj {
    if (p.id && products.has(p.id)) throw invalid(`Product already exists.`, { param: "id", code: "resource_already_exists" });
    return store(products, {
      id: p.id ?? newId("prod"),
      object: "product",
      active: p.active ?? true,
      created: now(),
      default_price: null,
      description: p.description ?? null,
      images: p.images ?? [],
      livemode: false,
      marketing_features: [],
      metadata: mergeMetadata({}, p.metadata),
      name: p.name,
      package_dimensions: null,
      shippable: null,
      statement_descriptor: p.statement_descriptor ?? null,
      tax_code: p.tax_code ?? null,
      tax_details: null,
      type: "service",
      unit_label: p.unit_label ?? null,
      updated: now(),
      url: null,
    });
  }

  function createPrice(p: Obj, paramPrefix = "", opts: { active?: boolean } = {}): Obj {
    const name = (key: string) => (paramPrefix ? `${paramPrefix}[${key}]` : key);
    const currency = checkCurrency(p.currency, name("currency"));
    let productId: string;
    if (typeof p.product === "string") {
      if (!products.has(p.product)) throw noSuch("product", p.product, name("product"));
      productId = p.product;
    } else if (p.product_data) {
      productId = createProduct({ ...p.product_data, active: opts.active ?? true }).id;
    } else {
      throw invalid("You must specify either `product` or `product_data` when creating a price.", {
        param: name("product"),
        code: "parameter_missing",
      });
    }
    const scheme = p.billing_scheme ?? "per_unit";
    let tiers: Obj[] | undefined;
    if (scheme === "tiered") {
      if (!p.tiers_mode) throw invalid("Missing required param: tiers_mode.", { param: name("tiers_mode"), code: "parameter_missing" });
      const given = (p.tiers as Obj[] | undefined) ?? [];
      if (given.length === 0) throw invalid("Missing required param: tiers.", { param: name("tiers"), code: "parameter_missing" });
      if (given[given.length - 1]!.up_to !== "inf")
        throw invalid("The last tier must have `up_to` set to `inf`.", { param: name("tiers") });
      tiers = given.map((t) => ({
        flat_amount: t.flat_amount ?? null,
        flat_amount_decimal: t.flat_amount !== undefined ? String(t.flat_amount) : (t.flat_amount_decimal ?? null),
        unit_amount: t.unit_amount ?? null,
        unit_amount_decimal: t.unit_amount !== undefined ? String(t.unit_amount) : (t.unit_amount_decimal ?? null),
        up_to: t.up_to === "inf" ? null : t.up_to,
      }));
    } else if (p.unit_amount === undefined && p.unit_amount_decimal === undefined && p.custom_unit_amount === undefined) {
      throw invalid("Missing required param: unit_amount.", { param: name("unit_amount"), code: "parameter_missing" });
    } else if (p.tiers !== undefined || p.tiers_mode !== undefined) {
      throw invalid("You may only specify `tiers` with `billing_scheme=tiered`.", { param: name("tiers") });
    }
    let recurring: Obj | null = null;
    if (p.recurring) {
      const r = p.recurring as Obj;
      const usage = r.usage_type ?? "licensed";
      if (usage === "metered") {
        if (!r.meter)
          throw invalid("Prices with `usage_type=metered` must be backed by a meter. Pass `recurring[meter]`.", {
            param: name("recurring[meter]"),
            code: "parameter_missing",
          });
        if (!meters.has(r.meter)) throw noSuch("billing.meter", r.meter, name("recurring[meter]"));
      } else if (r.meter) {
        throw invalid("`recurring[meter]` can only be set when `recurring[usage_type]` is `metered`.", { param: name("recurring[meter]") });
      }
      recurring = {
        interval: r.interval,
        interval_count: r.interval_count ?? 1,
        meter: r.meter ?? null,
        trial_period_days: r.trial_period_days ?? null,
        usage_type: usage,
      };
    }
    if (p.lookup_key) {
      const holder = [...prices.values()].find((price) => price.lookup_key === p.lookup_key);
      if (holder) {
        if (!p.transfer_lookup_key)
          throw invalid(`A price (\`${holder.id}\`) already uses that lookup key.`, { param: name("lookup_key") });
        holder.lookup_key = null;
      }
    }
    const unitAmount = p.unit_amount ?? (p.unit_amount_decimal !== undefined ? Math.round(Number(p.unit_amount_decimal)) : null);
    const price = store(prices, {
      id: newId("price"),
      object: "price",
      active: opts.active ?? p.active ?? true,
      billing_scheme: scheme,
      created: now(),
      currency,
      custom_unit_amount: null,
      livemode: false,
      lookup_key: p.lookup_key ?? null,
      metadata: mergeMetadata({}, p.metadata),
      nickname: p.nickname ?? null,
      product: productId,
      recurring,
      tax_behavior: p.tax_behavior ?? "unspecified",
      ...(tiers ? { tiers } : {}),
      tiers_mode: scheme === "tiered" ? p.tiers_mode : null,
      transform_quantity: null,
      type: recurring ? "recurring" : "one_time",
      unit_amount: scheme === "tiered" ? null : unitAmount,
      unit_amount_decimal: scheme === "tiered" ? null : String(p.unit_amount_decimal ?? unitAmount),
    });
    return price;
  }

  function priceAmount(price: Obj, quantity: number): number {
    if (price.recurring?.usage_type === "metered") return 0;
    if (price.billing_scheme !== "tiered") return Math.round(Number(price.unit_amount_decimal ?? price.unit_amount ?? 0) * quantity);
    const tiers = price.tiers as Obj[];
    const tierAmount = (tier: Obj, units: number) =>
      Math.round(Number(tier.unit_amount_decimal ?? 0) * units + Number(tier.flat_amount_decimal ?? 0));
    if (price.tiers_mode === "volume") {
      const tier = tiers.find((t) => t.up_to === null || quantity <= t.up_to) ?? tiers[tiers.length - 1]!;
      return quantity === 0 ? 0 : tierAmount(tier, quantity);
    }
    let total = 0;
    let floor = 0;
    for (const tier of tiers) {
      const cap = tier.up_to === null ? Infinity : tier.up_to;
      const units = Math.max(Math.min(quantity, cap) - floor, 0);
      if (units > 0) total += tierAmount(tier, units);
      floor = cap;
      if (quantity <= cap) break;
    }
    return total;
  }

  function priceParam(id: string, param: string): Obj {
    const price = prices.get(id);
    if (!price) throw noSuch("price", id, param);
    return price;
  }

  // ------------------------------------------------------------------ subscriptions and invoices

  function planOf(price: Obj): Obj {
    return {
      id: price.id,
      object: "plan",
      active: price.active,
      amount: price.unit_amount,
      amount_decimal: price.unit_amount_decimal,
      billing_scheme: price.billing_scheme,
      created: price.created,
      currency: price.currency,
      interval: price.recurring?.interval ?? null,
      interval_count: price.recurring?.interval_count ?? null,
      livemode: false,
      metadata: price.metadata,
      meter: price.recurring?.meter ?? null,
      nickname: price.nickname,
      product: price.product,
      tiers_mode: price.tiers_mode,
      transform_usage: null,
      trial_period_days: null,
      usage_type: price.recurring?.usage_type ?? "licensed",
    };
  }

  function subscriptionItem(subId: string, price: Obj, quantity: number | undefined, metadata: unknown, itemPath: string): Obj {
    if (price.type !== "recurring") {
      throw invalid("The price specified is set to `type=one_time` but this field only accepts prices with `type=recurring`.", {
        param: `${itemPath}[price]`,
      });
    }
    const metered = price.recurring.usage_type === "metered";
    if (metered && quantity !== undefined) {
      throw invalid(`Quantity should not be specified where usage_type is \`metered\`. Remove quantity from \`${itemPath}\`.`, {
        param: `${itemPath}[quantity]`,
      });
    }
    return {
      id: newId("si"),
      object: "subscription_item",
      billing_thresholds: null,
      created: now(),
      current_period_end: 0,
      current_period_start: 0,
      discounts: [],
      metadata: mergeMetadata({}, metadata),
      plan: planOf(price),
      price: clone(price),
      ...(metered ? {} : { quantity: quantity ?? 1 }),
      subscription: subId,
      tax_rates: [],
    };
  }

  function checkItemsMatch(items: Obj[]) {
    const first = items[0]?.price;
    for (const item of items) {
      if (item.price.currency !== first.currency) {
        throw invalid("Currency and interval fields must match across all plans on this subscription. Found mismatch in currency field.", {
          param: "items",
        });
      }
      if (
        item.price.recurring.interval !== first.recurring.interval ||
        item.price.recurring.interval_count !== first.recurring.interval_count
      ) {
        throw invalid("Currency and interval fields must match across all plans on this subscription. Found mismatch in interval field.", {
          param: "items",
        });
      }
    }
  }

  function setPeriods(sub: Obj, start: number) {
    for (const item of sub.items.data as Obj[]) {
      const r = item.price.recurring;
      item.current_period_start = start;
      item.current_period_end =
        sub.status === "trialing" && sub.trial_end ? sub.trial_end : addInterval(start, r.interval, r.interval_count);
    }
    if (sub.cancel_at_period_end) sub.cancel_at = periodEnd(sub);
  }

  function periodEnd(sub: Obj): number {
    return Math.min(...(sub.items.data as Obj[]).map((item) => item.current_period_end));
  }

  /**
   * The usage a metered item accrued since it was last billed: the sum of the values of its
   * meter's events for the subscription's customer. Marks them billed (the fake has no clock, so
   * "the period that ends" is "everything not billed yet").
   */
  function takeMeteredUsage(sub: Obj, item: Obj): number {
    const meter = item.price.recurring?.meter ? meters.get(item.price.recurring.meter) : undefined;
    if (!meter) return 0;
    let total = 0;
    for (const [identifier, event] of meterEvents) {
      if (billedMeterEvents.has(identifier) || event.event_name !== meter.event_name) continue;
      if (event.payload[meter.customer_mapping.event_payload_key] !== sub.customer) continue;
      billedMeterEvents.add(identifier);
      total += Number(event.payload[meter.value_settings.event_payload_key] ?? 0) || 0;
    }
    return total;
  }

  /**
   * `usage`: bill metered items in arrears for what they accrued (a renewal); otherwise their
   * accrued usage is dropped (a trial's end bills none) and they bill nothing.
   */
  function createInvoice(sub: Obj, reason: string, extraLines: { price: Obj; quantity: number }[] = [], usage = false): Obj {
    const customer = customers.get(sub.customer)!;
    const trial = sub.status === "trialing";
    const lines: Obj[] = [];
    for (const item of sub.items.data as Obj[]) {
      const metered = item.price.recurring?.usage_type === "metered";
      const used = metered ? takeMeteredUsage(sub, item) : 0;
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
        description: `${item.quantity ?? 1} × ${products.get(item.price.product)?.name ?? "Item"}${trial ? " (trial)" : ""}`,
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
        description: products.get(extra.price.product)?.name ?? "Item",
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
    return store(invoices, {
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
      hosted_invoice_url: `${origin}/invoices/${id}`,
      invoice_pdf: `${origin}/invoices/${id}/pdf`,
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

  function markInvoicePaid(invoice: Obj) {
    invoice.status = "paid";
    invoice.amount_paid = invoice.amount_due;
    invoice.amount_remaining = 0;
    invoice.status_transitions.paid_at = now();
    confirmationSecretOf.delete(invoice.id);
  }

  /**
   * A PaymentIntent of an invoice succeeded: the invoice is paid; a subscription whose latest
   * invoice it is becomes active, and with payment_settings.save_default_payment_method
   * on_subscription it keeps the card as its default payment method.
   */
  function invoicePaid(ctx: Ctx | null, invoiceId: string, paymentMethodId?: string, outOfBand = false) {
    const invoice = invoices.get(invoiceId);
    if (!invoice || invoice.status === "paid") return;
    if (!outOfBand) {
      invoice.attempted = true;
      invoice.attempt_count += 1;
    }
    markInvoicePaid(invoice);
    emit(ctx, "invoice.paid", invoice);
    const sub = subscriptions.get(invoice.parent?.subscription_details?.subscription);
    if (!sub || sub.status === "canceled" || sub.status === "incomplete_expired") return;
    const before = clone(sub);
    if (sub.latest_invoice === invoice.id && ["incomplete", "past_due", "unpaid"].includes(sub.status)) sub.status = "active";
    if (paymentMethodId && sub.payment_settings.save_default_payment_method === "on_subscription")
      sub.default_payment_method = paymentMethodId;
    const changes = diff(before, sub);
    if (quietSubscription !== sub.id && Object.keys(changes).length > 0) emit(ctx, "customer.subscription.updated", sub, changes);
  }

  function invoicePaymentFailed(ctx: Ctx | null, invoiceId: string) {
    const invoice = invoices.get(invoiceId);
    if (!invoice) return;
    invoice.attempted = true;
    invoice.attempt_count += 1;
    emit(ctx, "invoice.payment_failed", invoice);
  }

  /** The PaymentIntent that collects an open invoice: the one still payable, or a new one. */
  function intentForInvoice(invoice: Obj): Obj {
    const current = paymentIntents.get(confirmationSecretOf.get(invoice.id)?.client_secret.split("_secret_")[0] ?? "");
    if (current && CONFIRMABLE.includes(current.status)) return current;
    const pi = newPaymentIntent({
      amount: invoice.amount_remaining,
      currency: invoice.currency,
      customer: invoice.customer,
      description: invoice.billing_reason === "subscription_create" ? "Subscription creation" : "Subscription update",
      automatic_payment_methods: { enabled: false },
    });
    pi.setup_future_usage = "off_session";
    invoiceOfIntent.set(pi.id, invoice.id);
    confirmationSecretOf.set(invoice.id, { client_secret: pi.client_secret, type: "payment_intent" });
    return pi;
  }

  /**
   * Collects an open invoice: with default_incomplete a PaymentIntent is left for the customer to
   * confirm (invoice.confirmation_secret); otherwise the default payment method is charged.
   */
  function collectInvoice(ctx: Ctx | null, invoice: Obj, behavior: string, pm: Obj | null): "paid" | "open" | "failed" {
    if (invoice.amount_due === 0) {
      markInvoicePaid(invoice);
      emit(ctx, "invoice.paid", invoice);
      return "paid";
    }
    const pi = intentForInvoice(invoice);
    if (behavior === "default_incomplete" || !pm) return "open";
    const result = chargeIntent(ctx, pi, pm);
    return result.ok ? "paid" : "failed";
  }

  /** The payment method a subscription's invoices are charged to: its own, else its customer's. */
  function defaultPaymentMethodOf(sub: Obj): Obj | null {
    const customer = customers.get(sub.customer);
    const id = sub.default_payment_method ?? customer?.invoice_settings.default_payment_method ?? null;
    return id ? (paymentMethods.get(id) ?? null) : null;
  }

  /**
   * Charges a subscription's new invoice automatically (trial end, renewal): a decline or a missing
   * payment method fails the attempt (invoice.payment_failed) and leaves the subscription past_due.
   * The caller sends customer.subscription.updated.
   */
  function chargeSubscriptionInvoice(ctx: Ctx | null, sub: Obj, invoice: Obj) {
    const pm = defaultPaymentMethodOf(sub);
    quietSubscription = sub.id;
    let outcome: "paid" | "open" | "failed";
    try {
      outcome = collectInvoice(ctx, invoice, "allow_incomplete", pm);
    } finally {
      quietSubscription = null;
    }
    if (outcome === "open") invoicePaymentFailed(ctx, invoice.id);
    if (outcome !== "paid") sub.status = "past_due";
    else if (sub.status === "past_due" || sub.status === "unpaid") sub.status = "active";
  }

  /** The end of a subscription's current period (what a test clock reaching it would do). */
  function cycleSubscription(sub: Obj) {
    const t = now();
    const before = clone(sub);
    if (sub.cancel_at_period_end || (typeof sub.cancel_at === "number" && sub.cancel_at <= periodEnd(sub))) {
      sub.status = "canceled";
      sub.ended_at = t;
      sub.canceled_at = sub.canceled_at ?? t;
      sub.pending_setup_intent = null;
      emit(null, "customer.subscription.deleted", sub);
      return;
    }
    const renewal = sub.status !== "trialing";
    if (sub.status === "trialing") {
      sub.trial_end = t;
      sub.status = "active";
      sub.billing_cycle_anchor = t;
      setPeriods(sub, t);
    } else {
      for (const item of sub.items.data as Obj[]) {
        const r = item.price.recurring;
        item.current_period_start = item.current_period_end;
        item.current_period_end = addInterval(item.current_period_start, r.interval, r.interval_count);
      }
    }
    const invoice = createInvoice(sub, "subscription_cycle", [], renewal);
    sub.latest_invoice = invoice.id;
    chargeSubscriptionInvoice(null, sub, invoice);
    emit(null, "customer.subscription.updated", sub, diff(before, sub));
  }

  /** POST /v1/invoices/:id/pay: charges the given or the default payment method now. */
  function payInvoice(ctx: Ctx, invoice: Obj, p: Obj): Obj {
    if (invoice.status === "paid") throw invalid("Invoice is already paid");
    if (invoice.status !== "open")
      throw invalid(`You can only pay an invoice with a status of open. This invoice has a status of ${invoice.status}.`);
    if (p.paid_out_of_band) {
      // Paid outside Stripe: marked paid, nothing charged.
      invoicePaid(ctx, invoice.id, undefined, true);
      return invoice;
    }
    const customer = customers.get(invoice.customer)!;
    const sub = subscriptions.get(invoice.parent?.subscription_details?.subscription);
    let pm: Obj | null;
    if (p.payment_method) pm = paymentMethodOfCustomer(customer, p.payment_method, "payment_method");
    else if (invoice.default_payment_method) pm = paymentMethods.get(invoice.default_payment_method) ?? null;
    else if (sub) pm = defaultPaymentMethodOf(sub);
    else
      pm = customer.invoice_settings.default_payment_method
        ? (paymentMethods.get(customer.invoice_settings.default_payment_method) ?? null)
        : null;
    if (!pm) {
      throw invalid(
        "This customer has no attached payment source or default payment method. Please consider adding a default payment method. For more information, visit https://docs.stripe.com/billing/subscriptions/payment-methods-setting#payment-method-priority.",
        { code: "resource_missing" },
      );
    }
    const result = chargeIntent(ctx, intentForInvoice(invoice), pm);
    if (!result.ok) throw new ApiError(402, result.error);
    return invoice;
  }

  function newSubscription(ctx: Ctx, p: Obj, fromCheckout = false): Obj {
    const customer = customerParam(p.customer);
    if (!customer) throw bad("Missing required param: customer.", "customer", "parameter_missing");
    const itemParams = (p.items as Obj[] | undefined) ?? [];
    if (itemParams.length === 0) throw bad("Missing required param: items.", "items", "parameter_missing");
    const id = newId("sub");
    const items = itemParams.map((item, i) => {
      const path = `items[${i}]`;
      let price: Obj;
      if (item.price) price = priceParam(item.price, `${path}[price]`);
      else if (item.plan) price = priceParam(item.plan, `${path}[plan]`);
      else if (item.price_data) price = createPrice(item.price_data, `${path}[price_data]`, { active: false });
      else throw bad(`Missing required param: ${path}[price].`, `${path}[price]`, "parameter_missing");
      return subscriptionItem(id, price, item.quantity, item.metadata, path);
    });
    checkItemsMatch(items);
    const seen = new Set<string>();
    for (const item of items) {
      if (seen.has(item.price.id))
        throw invalid(`Cannot add multiple subscription items with the same price: ${item.price.id}`, { param: "items" });
      seen.add(item.price.id);
    }
    let trialEnd: number | null = null;
    const start = now();
    if (typeof p.trial_end === "number") {
      if (p.trial_end <= start)
        throw invalid("Invalid timestamp: must be an integer Unix timestamp in the future.", { param: "trial_end" });
      if (p.trial_end > start + 730 * 86400)
        throw invalid("Invalid timestamp: can be no more than two years in the future.", { param: "trial_end" });
      trialEnd = p.trial_end;
    } else if (typeof p.trial_period_days === "number" && p.trial_period_days > 0) {
      trialEnd = start + p.trial_period_days * 86400;
    }
    let pm: Obj | null = null;
    if (p.default_payment_method) pm = paymentMethodOfCustomer(customer, p.default_payment_method, "default_payment_method");
    else if (customer.invoice_settings.default_payment_method)
      pm = paymentMethods.get(customer.invoice_settings.default_payment_method) ?? null;
    const behavior = (p.payment_behavior as string | undefined) ?? "allow_incomplete";
    if (behavior === "pending_if_incomplete") {
      throw invalid("`payment_behavior=pending_if_incomplete` can only be used when updating a subscription.", {
        param: "payment_behavior",
      });
    }
    const sub: Obj = {
      id,
      object: "subscription",
      application: null,
      application_fee_percent: null,
      automatic_tax: { disabled_reason: null, enabled: false, liability: null },
      billing_cycle_anchor: trialEnd ?? start,
      billing_cycle_anchor_config: null,
      billing_mode: { flexible: null, type: "flexible", updated_at: start },
      billing_thresholds: null,
      cancel_at: p.cancel_at ?? null,
      cancel_at_period_end: p.cancel_at_period_end ?? false,
      canceled_at: null,
      cancellation_details: { comment: null, feedback: null, reason: null },
      collection_method: p.collection_method ?? "charge_automatically",
      created: start,
      currency: items[0]!.price.currency,
      customer: customer.id,
      customer_account: null,
      days_until_due: p.days_until_due ?? null,
      default_payment_method: p.default_payment_method ? pm!.id : null,
      default_source: null,
      default_tax_rates: [],
      description: p.description ?? null,
      discounts: [],
      ended_at: null,
      invoice_settings: { account_tax_ids: null, issuer: { type: "self" } },
      items: { object: "list", data: items, has_more: false, total_count: items.length, url: `/v1/subscription_items?subscription=${id}` },
      latest_invoice: null,
      livemode: false,
      metadata: mergeMetadata({}, p.metadata),
      next_pending_invoice_item_invoice: null,
      on_behalf_of: null,
      pause_collection: null,
      payment_settings: {
        payment_method_options: p.payment_settings?.payment_method_options ?? null,
        payment_method_types: p.payment_settings?.payment_method_types ?? null,
        save_default_payment_method: p.payment_settings?.save_default_payment_method ?? "off",
      },
      pending_invoice_item_interval: null,
      pending_setup_intent: null,
      pending_update: null,
      schedule: null,
      start_date: start,
      status: trialEnd ? "trialing" : "incomplete",
      test_clock: null,
      transfer_data: null,
      trial_end: trialEnd,
      trial_settings: { end_behavior: { missing_payment_method: "create_invoice" } },
      trial_start: trialEnd ? start : null,
    };
    setPeriods(sub, start);
    const amount = trialEnd ? 0 : items.reduce((sum, item) => sum + priceAmount(item.price, item.quantity ?? 0), 0);
    const oneTime = (p._one_time as { price: Obj; quantity: number }[] | undefined) ?? [];
    if (
      amount + oneTime.reduce((s, l) => s + priceAmount(l.price, l.quantity), 0) > 0 &&
      !pm &&
      behavior !== "default_incomplete" &&
      sub.collection_method === "charge_automatically" &&
      !fromCheckout
    ) {
      throw invalid(
        "This customer has no attached payment source or default payment method. Please consider adding a default payment method. For more information, visit https://docs.stripe.com/billing/subscriptions/payment-methods-setting#payment-method-priority.",
        { code: "resource_missing" },
      );
    }
    store(subscriptions, sub);
    const invoice = createInvoice(sub, "subscription_create", oneTime);
    sub.latest_invoice = invoice.id;
    const outcome = collectInvoice(ctx, invoice, behavior, pm);
    if (outcome === "paid" && sub.status !== "trialing") sub.status = "active";
    // Nothing to pay now and no card yet: a SetupIntent for the customer to save one (trials).
    if (invoice.amount_due === 0 && !pm && behavior === "default_incomplete" && sub.collection_method === "charge_automatically") {
      const si = newSetupIntent({ customer: customer.id });
      subscriptionOfSetupIntent.set(si.id, sub.id);
      sub.pending_setup_intent = si.id;
    }
    if (outcome === "failed" && behavior === "error_if_incomplete") {
      subscriptions.delete(sub.id);
      const pi = paymentIntents.get(confirmationSecretOf.get(invoice.id)?.client_secret.split("_secret_")[0] ?? "");
      throw new ApiError(402, {
        ...(pi?.last_payment_error ?? { type: "card_error", code: "card_declined", message: "Your card was declined." }),
        payment_intent: clone(pi),
      });
    }
    emit(ctx, "customer.subscription.created", sub);
    return sub;
  }

  function updateSubscription(ctx: Ctx, sub: Obj, p: Obj): Obj {
    if (sub.status === "canceled" || sub.status === "incomplete_expired") {
      const allowed = ["metadata", "cancellation_details", "expand"];
      if (Object.keys(p).some((k) => !allowed.includes(k))) {
        throw invalid("A canceled subscription can only update its cancellation_details and metadata.");
      }
    }
    const before = clone(sub);
    if ("metadata" in p) sub.metadata = mergeMetadata(sub.metadata, p.metadata);
    if ("description" in p) sub.description = p.description;
    if (p.cancellation_details) Object.assign(sub.cancellation_details, p.cancellation_details);
    const customer = customers.get(sub.customer)!;
    if ("default_payment_method" in p) {
      sub.default_payment_method =
        p.default_payment_method === null ? null : paymentMethodOfCustomer(customer, p.default_payment_method, "default_payment_method").id;
    }
    if (p.items) {
      const data = sub.items.data as Obj[];
      (p.items as Obj[]).forEach((item, i) => {
        const path = `items[${i}]`;
        if (item.id) {
          const existing = data.find((d) => d.id === item.id);
          if (!existing) throw noSuch("subscription_item", item.id, `${path}[id]`);
          if (item.deleted) {
            data.splice(data.indexOf(existing), 1);
            return;
          }
          if (item.price || item.price_data) {
            const price = item.price
              ? priceParam(item.price, `${path}[price]`)
              : createPrice(item.price_data, `${path}[price_data]`, { active: false });
            const replaced = subscriptionItem(
              sub.id,
              price,
              item.quantity ?? (price.recurring?.usage_type === "metered" ? undefined : existing.quantity),
              undefined,
              path,
            );
            existing.price = replaced.price;
            existing.plan = replaced.plan;
            if ("quantity" in replaced) existing.quantity = replaced.quantity;
            else delete existing.quantity;
          } else if (item.quantity !== undefined) {
            if (existing.price.recurring.usage_type === "metered") {
              throw invalid(`Quantity should not be specified where usage_type is \`metered\`. Remove quantity from \`${path}\`.`, {
                param: `${path}[quantity]`,
              });
            }
            existing.quantity = item.quantity;
          }
          if (item.metadata !== undefined) existing.metadata = mergeMetadata(existing.metadata, item.metadata);
        } else {
          const price = item.price
            ? priceParam(item.price, `${path}[price]`)
            : item.price_data
              ? createPrice(item.price_data, `${path}[price_data]`, { active: false })
              : null;
          if (!price) throw bad(`Missing required param: ${path}[price].`, `${path}[price]`, "parameter_missing");
          if (data.some((d) => d.price.id === price.id))
            throw invalid(`Cannot add multiple subscription items with the same price: ${price.id}`, { param: `${path}[price]` });
          const added = subscriptionItem(sub.id, price, item.quantity, item.metadata, path);
          added.current_period_start = data[0]?.current_period_start ?? now();
          added.current_period_end =
            data[0]?.current_period_end ?? addInterval(now(), price.recurring.interval, price.recurring.interval_count);
          data.push(added);
        }
      });
      if (data.length === 0)
        throw invalid(
          "A subscription must have at least one active plan. To cancel a subscription, please use the cancel API endpoint on /v1/subscriptions.",
          { param: "items" },
        );
      checkItemsMatch(data);
      sub.items.total_count = data.length;
    }
    if (p.payment_settings) {
      for (const key of ["payment_method_options", "payment_method_types", "save_default_payment_method"]) {
        if (key in p.payment_settings)
          sub.payment_settings[key] = p.payment_settings[key] ?? (key === "save_default_payment_method" ? "off" : null);
      }
    }
    if ("cancel_at_period_end" in p) {
      const was = sub.cancel_at_period_end;
      sub.cancel_at_period_end = Boolean(p.cancel_at_period_end);
      sub.cancel_at = sub.cancel_at_period_end ? periodEnd(sub) : null;
      // canceled_at is the time of the (latest) request to cancel, not the end of the period.
      if (!sub.cancel_at_period_end) {
        sub.canceled_at = null;
        sub.cancellation_details = { comment: null, feedback: null, reason: null };
      } else {
        if (!was) sub.canceled_at = now();
        sub.cancellation_details.reason = "cancellation_requested";
      }
    }
    if ("cancel_at" in p && !("cancel_at_period_end" in p)) {
      sub.cancel_at = p.cancel_at;
      sub.cancel_at_period_end = false;
    }
    if (p.trial_end !== undefined && p.trial_end !== null) {
      const t = now();
      if (p.trial_end === "now") {
        if (sub.status === "trialing") {
          // The trial ends and billing starts now: a full first period, invoiced and charged.
          sub.trial_end = t;
          sub.status = "active";
          sub.billing_cycle_anchor = t;
          setPeriods(sub, t);
          const invoice = createInvoice(sub, "subscription_update");
          sub.latest_invoice = invoice.id;
          chargeSubscriptionInvoice(ctx, sub, invoice);
        }
      } else {
        if (p.trial_end <= t) throw invalid("Invalid timestamp: must be an integer Unix timestamp in the future.", { param: "trial_end" });
        sub.trial_end = p.trial_end;
        sub.trial_start = sub.trial_start ?? t;
        sub.status = "trialing";
        for (const item of sub.items.data as Obj[]) item.current_period_end = p.trial_end;
      }
    }
    const changes = diff(before, sub);
    if (Object.keys(changes).length > 0) emit(ctx, "customer.subscription.updated", sub, changes);
    return sub;
  }

  function cancelSubscription(ctx: Ctx, sub: Obj, p: Obj): Obj {
    if (sub.status === "canceled") {
      throw invalid(`No such subscription: '${sub.id}'`, { code: "resource_missing", status: 404 });
    }
    const t = now();
    sub.status = "canceled";
    sub.canceled_at = t;
    sub.ended_at = t;
    sub.cancel_at = sub.cancel_at ?? null;
    sub.cancellation_details = {
      comment: p.cancellation_details?.comment ?? null,
      feedback: p.cancellation_details?.feedback ?? null,
      reason: "cancellation_requested",
    };
    emit(ctx, "customer.subscription.deleted", sub);
    return sub;
  }

  // ------------------------------------------------------------------ checkout

  function createCheckoutSession(p: Obj): Obj {
    const lineParams = (p.line_items as Obj[] | undefined) ?? [];
    const resolved = lineParams.map((item, i) => {
      const path = `line_items[${i}]`;
      let price: Obj;
      if (item.price && item.price_data)
        throw invalid(`You may only specify one of these parameters: ${path}[price], ${path}[price_data].`, {
          param: `${path}[price]`,
          code: "parameters_exclusive",
        });
      if (item.price) price = priceParam(item.price, `${path}[price]`);
      else if (item.price_data) {
        const pd = item.price_data as Obj;
        if (!pd.product && !pd.product_data)
          throw invalid(`You must specify either \`product\` or \`product_data\` when creating a price.`, {
            param: `${path}[price_data][product_data]`,
            code: "parameter_missing",
          });
        if (pd.unit_amount === undefined && pd.unit_amount_decimal === undefined)
          throw invalid(`Missing required param: ${path}[price_data][unit_amount].`, {
            param: `${path}[price_data][unit_amount]`,
            code: "parameter_missing",
          });
        price = createPrice(pd, `${path}[price_data]`, { active: false });
      } else throw bad(`Missing required param: ${path}[price].`, `${path}[price]`, "parameter_missing");
      if (item.quantity === undefined || item.quantity === null)
        throw bad(`Missing required param: ${path}[quantity].`, `${path}[quantity]`, "parameter_missing");
      if (!price.active && item.price)
        throw invalid(`The price \`${price.id}\` is not available to be purchased because it is not active.`, { param: `${path}[price]` });
      return { price, quantity: item.quantity as number, path };
    });
    const anyRecurring = resolved.some((r) => r.price.type === "recurring");
    const mode: string = p.mode ?? (anyRecurring ? "subscription" : "payment");
    if (mode !== "setup" && resolved.length === 0) throw bad("Missing required param: line_items.", "line_items", "parameter_missing");
    if (mode === "payment") {
      const recurring = resolved.find((r) => r.price.type === "recurring");
      if (recurring) {
        throw invalid(
          "You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.",
          { param: `${recurring.path}[price]` },
        );
      }
    }
    if (mode === "subscription" && !anyRecurring) {
      throw invalid("You must provide at least one recurring price in `subscription` mode when using prices.", { param: "line_items" });
    }
    if (mode === "setup" && resolved.length > 0) throw invalid("You cannot pass `line_items` in `setup` mode.", { param: "line_items" });
    if (p.payment_intent_data && mode !== "payment")
      throw invalid("You can only specify `payment_intent_data` in `payment` mode.", { param: "payment_intent_data" });
    if (p.subscription_data && mode !== "subscription")
      throw invalid("You can only specify `subscription_data` in `subscription` mode.", { param: "subscription_data" });
    if (p.setup_intent_data && mode !== "setup")
      throw invalid("You can only specify `setup_intent_data` in `setup` mode.", { param: "setup_intent_data" });
    if (p.customer && p.customer_email) {
      throw invalid("You may only specify one of these parameters: customer, customer_email.", {
        param: "customer_email",
        code: "parameters_exclusive",
      });
    }
    if (mode === "setup" && !p.currency && !p.allowed_payment_method_types)
      throw bad("Missing required param: currency.", "currency", "parameter_missing");
    if (p.customer_creation && mode !== "payment")
      throw invalid("`customer_creation` can only be used in `payment` mode.", { param: "customer_creation" });
    checkEmail(p.customer_email);
    const customer = customerParam(p.customer);
    const uiMode = p.ui_mode ?? "hosted_page";
    for (const key of ["success_url", "cancel_url"] as const) {
      if (p[key] === undefined || p[key] === null) continue;
      if (uiMode !== "hosted_page") throw invalid(`\`${key}\` is not allowed if \`ui_mode\` is \`${uiMode}\`.`, { param: key });
      try {
        const u = new URL(String(p[key]).replace(/\{CHECKOUT_SESSION_ID\}/g, "x"));
        if (!/^https?:$/.test(u.protocol)) throw new Error("scheme");
      } catch {
        throw invalid("Not a valid URL", { param: key, code: "url_invalid" });
      }
    }
    const currencies = new Set(resolved.map((r) => r.price.currency));
    if (currencies.size > 1) throw invalid("All prices on a Checkout Session must have the same currency.", { param: "line_items" });
    const subtotal = resolved.reduce(
      (sum, r) =>
        sum +
        (r.price.type === "recurring" && (p.subscription_data?.trial_period_days || p.subscription_data?.trial_end)
          ? 0
          : priceAmount(r.price, r.quantity)),
      0,
    );
    const currency = resolved[0]?.price.currency ?? (p.currency ? checkCurrency(p.currency, "currency") : null);
    if (mode === "payment") {
      const minimum = MINIMUM_CHARGE[currency!] ?? 50;
      if (subtotal < minimum)
        throw invalid(`The Checkout Session's total amount due must add up to at least ${formatAmount(minimum, currency!)} ${currency}`, {
          param: "line_items",
        });
    }
    const id = `cs_test_${random(58)}`;
    const session = store(checkoutSessions, {
      id,
      object: "checkout.session",
      adaptive_pricing: null,
      after_expiration: null,
      allow_promotion_codes: p.allow_promotion_codes ?? null,
      allowed_payment_method_types: p.allowed_payment_method_types ?? null,
      amount_subtotal: mode === "setup" ? null : subtotal,
      amount_total: mode === "setup" ? null : subtotal,
      automatic_tax: { enabled: false, liability: null, provider: null, status: null },
      billing_address_collection: p.billing_address_collection ?? null,
      cancel_url: p.cancel_url ?? null,
      client_reference_id: p.client_reference_id ?? null,
      client_secret: null,
      collected_information: null,
      consent: null,
      consent_collection: null,
      created: now(),
      currency,
      currency_conversion: null,
      custom_fields: [],
      custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
      customer: customer?.id ?? null,
      customer_account: null,
      customer_creation: customer ? null : mode === "payment" ? (p.customer_creation ?? "if_required") : "always",
      customer_details: customer
        ? { address: null, email: customer.email, name: customer.name, phone: customer.phone, tax_exempt: "none", tax_ids: null }
        : null,
      customer_email: p.customer_email ?? null,
      discounts: [],
      expires_at: p.expires_at ?? now() + 24 * 3600,
      integration_identifier: null,
      invoice: null,
      invoice_creation:
        mode === "payment"
          ? {
              enabled: false,
              invoice_data: {
                account_tax_ids: null,
                custom_fields: null,
                description: null,
                footer: null,
                issuer: null,
                metadata: {},
                rendering_options: null,
              },
            }
          : null,
      livemode: false,
      locale: p.locale ?? null,
      managed_payments: null,
      metadata: mergeMetadata({}, p.metadata),
      mode,
      origin_context: null,
      payment_intent: null,
      payment_link: null,
      payment_method_collection: mode === "subscription" ? "always" : null,
      payment_method_configuration_details: null,
      payment_method_options: { card: { request_three_d_secure: "automatic" } },
      payment_method_types: ["card"],
      payment_status: mode === "setup" ? "no_payment_required" : "unpaid",
      permissions: null,
      phone_number_collection: { enabled: false },
      recovered_from: null,
      saved_payment_method_options: null,
      setup_intent: null,
      shipping_address_collection: null,
      shipping_cost: null,
      shipping_options: [],
      status: "open",
      submit_type: p.submit_type ?? null,
      subscription: null,
      success_url: p.success_url ?? null,
      total_details: mode === "setup" ? null : { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
      ui_mode: uiMode,
      url: uiMode === "hosted_page" ? `${origin}/checkout/${id}` : null,
      wallet_options: null,
    });
    Object.defineProperty(session, "_params", {
      value: {
        payment_intent_data: p.payment_intent_data ?? {},
        subscription_data: p.subscription_data ?? {},
        setup_intent_data: p.setup_intent_data ?? {},
      },
      enumerable: false,
    });
    lineItemsOf.set(
      id,
      resolved.map((r) => {
        const amount = priceAmount(r.price, r.quantity);
        return {
          id: newId("li"),
          object: "item",
          amount_discount: 0,
          amount_subtotal: amount,
          amount_tax: 0,
          amount_total: amount,
          currency: r.price.currency,
          description: products.get(r.price.product)?.name ?? null,
          metadata: {},
          price: clone(r.price),
          quantity: r.quantity,
        };
      }),
    );
    return session;
  }

  /** Pays a session from the hosted page. Returns an error message for the page, or null when complete. */
  function completeCheckout(ctx: Ctx, session: Obj, cardNumber: string, email: string): string | null {
    const extra = (session as Obj & { _params: Obj })._params;
    const behavior = cardBehavior(cardNumber);
    if (email) {
      try {
        checkEmail(email);
      } catch {
        return "Your email address is invalid.";
      }
    }
    const payerEmail = email || (session.customer ? customers.get(session.customer)?.email : null) || session.customer_email || null;
    const ensureCustomer = () => {
      if (!session.customer) session.customer = createCustomer({ email: payerEmail ?? undefined }).id;
      return customers.get(session.customer)!;
    };
    if (session.mode === "payment") {
      const pid = extra.payment_intent_data as Obj;
      let pi = intentOfSession.has(session.id) ? paymentIntents.get(intentOfSession.get(session.id)!) : undefined;
      if (!pi) {
        if (session.customer_creation === "always" || (pid.setup_future_usage && !session.customer)) ensureCustomer();
        pi = newPaymentIntent({
          amount: session.amount_total,
          currency: session.currency,
          customer: session.customer ?? undefined,
          description: pid.description,
          metadata: pid.metadata,
          receipt_email: pid.receipt_email ?? undefined,
          setup_future_usage: pid.setup_future_usage,
          capture_method: pid.capture_method,
          automatic_payment_methods: { enabled: false },
        });
        intentOfSession.set(session.id, pi.id);
        session.payment_intent = pi.id;
      }
      const result = chargeIntent(ctx, pi, createPaymentMethod(cardNumber));
      if (!result.ok) return String(result.error.message);
      session.payment_status = pi.status === "succeeded" ? "paid" : "unpaid";
    } else if (session.mode === "subscription") {
      if (behavior.decline && !behavior.setupSucceeds) return behavior.decline.message;
      const customer = ensureCustomer();
      const pm = createPaymentMethod(cardNumber);
      pm.customer = customer.id;
      const sd = extra.subscription_data as Obj;
      const lines = lineItemsOf.get(session.id) ?? [];
      const sub = newSubscription(
        ctx,
        {
          customer: customer.id,
          items: lines
            .filter((l) => l.price.type === "recurring")
            .map((l) => ({ price: l.price.id, quantity: l.price.recurring.usage_type === "metered" ? undefined : l.quantity })),
          _one_time: lines
            .filter((l) => l.price.type !== "recurring")
            .map((l) => ({ price: prices.get(l.price.id), quantity: l.quantity })),
          trial_end: sd.trial_end,
          trial_period_days: sd.trial_period_days,
          metadata: sd.metadata,
          description: sd.description,
          default_payment_method: pm.id,
          payment_behavior: "error_if_incomplete",
        },
        true,
      );
      session.subscription = sub.id;
      session.invoice = sub.latest_invoice;
      session.payment_status = invoices.get(sub.latest_invoice)?.amount_due ? "paid" : "no_payment_required";
    } else {
      if (behavior.decline && !behavior.setupSucceeds) return behavior.decline.message;
      const sid = extra.setup_intent_data as Obj;
      const si = newSetupIntent({ customer: session.customer, description: sid.description, metadata: sid.metadata });
      const result = setupWith(ctx, si, createPaymentMethod(cardNumber));
      if (!result.ok) return String(result.error.message);
      session.setup_intent = si.id;
    }
    session.status = "complete";
    const customer = session.customer ? customers.get(session.customer) : undefined;
    session.customer_details = {
      address: null,
      email: payerEmail ?? customer?.email ?? null,
      name: customer?.name ?? null,
      phone: null,
      tax_exempt: "none",
      tax_ids: [],
    };
    emit(ctx, "checkout.session.completed", session);
    return null;
  }

  function checkoutPage(session: Obj, opts: { error?: string; card?: string; email?: string } = {}) {
    const lines = lineItemsOf.get(session.id) ?? [];
    const currency = session.currency ?? "usd";
    const email = opts.email ?? session.customer_details?.email ?? session.customer_email ?? "buyer@example.com";
    const rows = lines
      .map(
        (l) =>
          `<li>${escapeHtml(String(l.description ?? "Item"))} × ${l.quantity} — ${escapeHtml(formatAmount(l.amount_total, l.currency))}${l.price.recurring ? ` / ${escapeHtml(l.price.recurring.interval)}` : ""}</li>`,
      )
      .join("");
    const total =
      session.mode === "setup" ? "" : `<p>Total: <strong>${escapeHtml(formatAmount(session.amount_total ?? 0, currency))}</strong></p>`;
    const button = session.mode === "setup" ? "Save card" : "Pay";
    const heading = session.mode === "setup" ? "Save a card" : session.mode === "subscription" ? "Subscribe" : "Pay";
    const error = opts.error ? `<p role="alert" id="card-error">${escapeHtml(opts.error)}</p>` : "";
    const cancel = session.cancel_url ? `<p><a href="${escapeHtml(session.cancel_url)}">Cancel</a></p>` : "";
    return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${heading} — Checkout (test mode)</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}label{display:block;margin-top:1rem}input{font-size:1rem;padding:.5rem;width:100%;box-sizing:border-box}button{margin-top:1rem;font-size:1rem;padding:.6rem 1.5rem;background:#0a2540;color:#fff;border:0;border-radius:4px}[role=alert]{color:#a00}</style>
</head>
<body><main>
<h1>${heading}</h1>
<p>Test mode: a stand-in for Stripe Checkout.</p>
${rows ? `<ul>${rows}</ul>` : ""}${total}
<form method="post" action="/checkout/${escapeHtml(session.id)}">
${error}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="email" value="${escapeHtml(email ?? "")}">
<label for="card-number">Card number</label>
<input id="card-number" name="card_number" type="text" inputmode="numeric" autocomplete="cc-number" value="${escapeHtml(opts.card ?? "4242 4242 4242 4242")}"${opts.error ? ' aria-invalid="true" aria-describedby="card-error"' : ""}>
<button type="submit">${button}</button>
</form>
${cancel}
</main></body></html>`;
  }

  function messagePage(title: string, text: string) {
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></main></body></html>`;
  }

  // ------------------------------------------------------------------ meters

  function recordMeterEvent(p: Obj): Obj {
    const payload = p.payload;
    if (!payload || typeof payload !== "object" || Array.isArray(payload))
      throw bad("Missing required param: payload.", "payload", "parameter_missing");
    for (const [k, v] of Object.entries(payload as Obj)) {
      if (typeof v !== "string") throw bad(`Invalid value type: ${describe(v)} must be a string`, `payload[${k}]`);
    }
    const t = now();
    const timestamp = p.timestamp ?? t;
    if (timestamp < t - 35 * 86400) throw invalid("Timestamp must be within the past 35 calendar days.", { param: "timestamp" });
    if (timestamp > t + 300) throw invalid("Timestamp must not be more than 5 minutes in the future.", { param: "timestamp" });
    const identifier: string = p.identifier ?? random(36, "0123456789abcdef");
    const seen = meterEventTimes.get(identifier);
    if (seen !== undefined && seen > t - 24 * 3600) {
      throw new ApiError(
        400,
        { type: "invalid_request_error", message: `An event already exists with identifier ${identifier}.`, param: "identifier" },
        { headers: { "Stripe-Should-Retry": "false" } },
      );
    }
    meterEventTimes.set(identifier, t);
    const event = {
      object: "billing.meter_event",
      created: t,
      event_name: p.event_name,
      identifier,
      livemode: false,
      payload: { ...(payload as Obj) },
      timestamp,
    };
    meterEvents.set(identifier, event);
    // Stripe checks the rest asynchronously and reports it (billing.meter.error_report_triggered).
    const meter = [...meters.values()].find((m) => m.event_name === p.event_name && m.status === "active");
    if (!meter) {
      meterEventErrors.push({ identifier, code: "no_meter", message: `No active meter was found for event name \`${p.event_name}\`.` });
    } else {
      const customerKey = meter.customer_mapping.event_payload_key;
      const valueKey = meter.value_settings.event_payload_key;
      const customerId = (payload as Obj)[customerKey];
      if (!customerId)
        meterEventErrors.push({ identifier, code: "meter_event_no_customer_defined", message: `The payload has no \`${customerKey}\`.` });
      else if (!customers.has(customerId))
        meterEventErrors.push({ identifier, code: "meter_event_customer_not_found", message: `No such customer: '${customerId}'` });
      const value = (payload as Obj)[valueKey];
      if (meter.default_aggregation.formula !== "count" && (value === undefined || !/^-?\d+(\.\d+)?$/.test(value))) {
        meterEventErrors.push({
          identifier,
          code: "meter_event_invalid_value",
          message: `The payload's \`${valueKey}\` must be a number, got ${describe(value)}.`,
        });
      }
    }
    return event;
  }

  // ------------------------------------------------------------------ routes

  const ID = "([^/]+)";
  const routes: Route[] = [
    // Customers
    {
      method: "POST",
      pattern: /^\/v1\/customers$/,
      handler: (_ctx, raw) => {
        const p = params(raw, CUSTOMER_CREATE);
        const customer = createCustomer(p);
        const attached = p.payment_method ? resolvePaymentMethod(p.payment_method, "payment_method") : null;
        if (attached) attachPaymentMethod(attached, customer);
        if (p.invoice_settings) {
          // The same test PaymentMethod (pm_card_visa) in both names the one just attached.
          const settings = { ...(p.invoice_settings as Obj) };
          if (attached && settings.default_payment_method === p.payment_method) settings.default_payment_method = attached.id;
          updateCustomerFields(customer, { invoice_settings: settings });
        }
        return expand(customer, p.expand);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/customers/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        const customer = getOr404(customers, "customer", id!);
        return customer.deleted ? { id: customer.id, object: "customer", deleted: true } : expand(customer, p.expand);
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^/v1/customers/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, CUSTOMER_UPDATE);
        const customer = getOr404(customers, "customer", id!);
        if (customer.deleted) throw noSuch("customer", id!);
        updateCustomerFields(customer, p);
        return expand(customer, p.expand);
      },
    },
    {
      method: "DELETE",
      pattern: new RegExp(`^/v1/customers/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        params(raw, {});
        const customer = getOr404(customers, "customer", id!);
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
        return expand(getOr404(paymentMethods, "PaymentMethod", id!), p.expand);
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^/v1/payment_methods/${ID}/attach$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, PM_ATTACH, ["customer"]);
        const customer = customerParam(p.customer)!;
        const pm = TEST_PAYMENT_METHODS[id!] ? resolvePaymentMethod(id!, "payment_method") : getOr404(paymentMethods, "PaymentMethod", id!);
        attachPaymentMethod(pm, customer);
        return expand(pm, p.expand);
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
          paymentSource(ctx, { payment_method_data: p.payment_method_data });
        }
        const pi = newPaymentIntent(p);
        if (p.payment_method && !p.confirm) {
          pi.payment_method = resolvePaymentMethod(p.payment_method, "payment_method").id;
          pi.status = "requires_confirmation";
        }
        if (p.confirm) confirmIntent(ctx, pi, p);
        return expand(pi, p.expand);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/payment_intents/${ID}$`),
      publishable: true,
      handler: (ctx, raw, [, id]) => {
        const p = params(raw, PI_RETRIEVE);
        const pi = intentForKey(ctx, id!, p);
        return ctx.auth === "publishable" ? publicIntent(pi) : expand(pi, p.expand);
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^/v1/payment_intents/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, PI_UPDATE);
        const pi = getOr404(paymentIntents, "payment_intent", id!);
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
        if (p.customer !== undefined) pi.customer = customerParam(p.customer)?.id ?? null;
        for (const key of ["description", "receipt_email", "setup_future_usage", "statement_descriptor", "statement_descriptor_suffix"]) {
          if (key in p) pi[key] = p[key];
        }
        if ("metadata" in p) pi.metadata = mergeMetadata(pi.metadata, p.metadata);
        if (p.payment_method) {
          pi.payment_method = resolvePaymentMethod(p.payment_method, "payment_method").id;
          pi.status = "requires_confirmation";
        }
        return expand(pi, p.expand);
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^/v1/payment_intents/${ID}/confirm$`),
      publishable: true,
      handler: (ctx, raw, [, id]) => {
        const p = params(raw, ctx.auth === "publishable" ? PI_CONFIRM_PUBLISHABLE : PI_CONFIRM);
        const pi = intentForKey(ctx, id!, p);
        try {
          confirmIntent(ctx, pi, p);
        } catch (error) {
          // A publishable key sees the redacted PaymentIntent in a card error too.
          if (error instanceof ApiError && error.error.payment_intent && ctx.auth === "publishable")
            error.error.payment_intent = publicIntent(pi);
          throw error;
        }
        return ctx.auth === "publishable" ? publicIntent(pi) : expand(pi, p.expand);
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^/v1/payment_intents/${ID}/cancel$`),
      handler: (ctx, raw, [, id]) => {
        const p = params(raw, PI_CANCEL);
        const pi = getOr404(paymentIntents, "payment_intent", id!);
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
        emit(ctx, "payment_intent.canceled", pi);
        return expand(pi, p.expand);
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^/v1/payment_intents/${ID}/capture$`),
      handler: (ctx, raw, [, id]) => {
        const p = params(raw, PI_CAPTURE);
        const pi = getOr404(paymentIntents, "payment_intent", id!);
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
        const charge = charges.get(pi.latest_charge)!;
        charge.captured = true;
        charge.amount_captured = amount;
        charge.balance_transaction = newId("txn");
        pi.amount_received = amount;
        pi.amount_capturable = 0;
        pi.status = "succeeded";
        if ("metadata" in p) pi.metadata = mergeMetadata(pi.metadata, p.metadata);
        emit(ctx, "payment_intent.succeeded", pi);
        return expand(pi, p.expand);
      },
    },
    // Charges and refunds
    {
      method: "GET",
      pattern: new RegExp(`^/v1/charges/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        return expand(getOr404(charges, "charge", id!), p.expand);
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
          pi = paymentIntents.get(p.payment_intent);
          if (!pi) throw noSuch("payment_intent", p.payment_intent, "payment_intent");
          if (pi.status !== "succeeded") {
            throw invalid(`This PaymentIntent (${pi.id}) does not have a successful charge to refund.`, {
              param: "payment_intent",
              code: "charge_not_refundable",
            });
          }
          charge = charges.get(pi.latest_charge);
        } else {
          charge = charges.get(p.charge);
          if (!charge) throw noSuch("charge", p.charge, "charge");
          if (!charge.captured || charge.status !== "succeeded")
            throw invalid(`Charge ${charge.id} cannot be refunded because it has not succeeded.`, {
              param: "charge",
              code: "charge_not_refundable",
            });
          pi = paymentIntents.get(charge.payment_intent);
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
        const refund = store(refunds, {
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
        emit(ctx, "refund.created", refund);
        emit(ctx, "charge.refunded", charge, diff(before, charge));
        return expand(refund, p.expand);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/refunds/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        return expand(getOr404(refunds, "refund", id!), p.expand);
      },
    },
    // Checkout
    {
      method: "POST",
      pattern: /^\/v1\/checkout\/sessions$/,
      handler: (_ctx, raw) => {
        const p = params(raw, CHECKOUT_CREATE);
        return expand(createCheckoutSession(p), p.expand);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/checkout/sessions/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        return expand(getOr404(checkoutSessions, "checkout.session", id!), p.expand);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/checkout/sessions/${ID}/line_items$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, LIST);
        getOr404(checkoutSessions, "checkout.session", id!);
        return expand(list(clone(lineItemsOf.get(id!) ?? []), `/v1/checkout/sessions/${id}/line_items`, p.limit ?? 10), p.expand);
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^/v1/checkout/sessions/${ID}/expire$`),
      handler: (ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        const session = getOr404(checkoutSessions, "checkout.session", id!);
        if (session.status !== "open")
          throw invalid(
            `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${session.status}".`,
          );
        session.status = "expired";
        session.url = null;
        emit(ctx, "checkout.session.expired", session);
        return expand(session, p.expand);
      },
    },
    // Products and prices
    {
      method: "POST",
      pattern: /^\/v1\/products$/,
      handler: (_ctx, raw) => {
        const p = params(raw, PRODUCT_CREATE, ["name"]);
        const product = createProduct(p);
        if (p.default_price_data) {
          const price = createPrice({ ...p.default_price_data, product: product.id }, "default_price_data");
          product.default_price = price.id;
        }
        return expand(product, p.expand);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/products/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        return expand(getOr404(products, "product", id!), p.expand);
      },
    },
    {
      method: "POST",
      pattern: /^\/v1\/prices$/,
      handler: (_ctx, raw) => {
        const p = params(raw, PRICE_CREATE, ["currency"]);
        return expand(createPrice(p), p.expand);
      },
    },
    {
      method: "GET",
      pattern: /^\/v1\/prices$/,
      handler: (_ctx, raw) => {
        const p = params(raw, PRICE_LIST);
        let found = [...prices.values()];
        if (p.active !== undefined && p.active !== null) found = found.filter((price) => price.active === p.active);
        if (p.lookup_keys) found = found.filter((price) => (p.lookup_keys as string[]).includes(price.lookup_key));
        if (p.product) found = found.filter((price) => price.product === p.product);
        if (p.currency) found = found.filter((price) => price.currency === String(p.currency).toLowerCase());
        if (p.type) found = found.filter((price) => price.type === p.type);
        if (p.recurring?.interval) found = found.filter((price) => price.recurring?.interval === p.recurring.interval);
        if (p.recurring?.usage_type) found = found.filter((price) => price.recurring?.usage_type === p.recurring.usage_type);
        if (p.recurring?.meter) found = found.filter((price) => price.recurring?.meter === p.recurring.meter);
        const limit = p.limit ?? 10;
        if (limit < 1 || limit > 100) throw invalid("Invalid limit: must be between 1 and 100", { param: "limit" });
        return expand(list(clone(found.sort(newestFirst)), "/v1/prices", limit), p.expand);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/prices/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        return expand(getOr404(prices, "price", id!), p.expand);
      },
    },
    // Billing meters
    {
      method: "POST",
      pattern: /^\/v1\/billing\/meters$/,
      handler: (_ctx, raw) => {
        const p = params(raw, METER_CREATE, ["default_aggregation", "display_name", "event_name"]);
        if ([...meters.values()].some((m) => m.event_name === p.event_name && m.status === "active")) {
          throw invalid(`An active meter with event name \`${p.event_name}\` already exists.`, { param: "event_name" });
        }
        const t = now();
        const meter = store(meters, {
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
        return expand(meter, p.expand);
      },
    },
    {
      method: "GET",
      pattern: /^\/v1\/billing\/meters$/,
      handler: (_ctx, raw) => {
        const p = params(raw, METER_LIST);
        const found = [...meters.values()].filter((m) => !p.status || m.status === p.status).sort(newestFirst);
        return expand(list(clone(found), "/v1/billing/meters", p.limit ?? 10), p.expand);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/billing/meters/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        return expand(getOr404(meters, "billing.meter", id!), p.expand);
      },
    },
    {
      method: "POST",
      pattern: /^\/v1\/billing\/meter_events$/,
      handler: (_ctx, raw) => {
        const p = params(raw, METER_EVENT_CREATE, ["event_name", "payload"]);
        return expand(recordMeterEvent(p), p.expand);
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
        const sub = newSubscription(ctx, p);
        return expand(sub, expansion);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/subscriptions/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        return expand(getOr404(subscriptions, "subscription", id!), p.expand);
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^/v1/subscriptions/${ID}$`),
      handler: (ctx, raw, [, id]) => {
        const p = params(raw, SUB_UPDATE);
        const sub = getOr404(subscriptions, "subscription", id!);
        validateExpansion("subscription", p.expand);
        return expand(updateSubscription(ctx, sub, p), p.expand);
      },
    },
    {
      method: "DELETE",
      pattern: new RegExp(`^/v1/subscriptions/${ID}$`),
      handler: (ctx, raw, [, id]) => {
        const p = params(raw, SUB_CANCEL);
        const sub = getOr404(subscriptions, "subscription", id!);
        validateExpansion("subscription", p.expand);
        return expand(cancelSubscription(ctx, sub, p), p.expand);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/invoices/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        const p = params(raw, EXPAND_ONLY);
        return expand(getOr404(invoices, "invoice", id!), p.expand);
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^/v1/invoices/${ID}/pay$`),
      handler: (ctx, raw, [, id]) => {
        const p = params(raw, INVOICE_PAY);
        const invoice = getOr404(invoices, "invoice", id!);
        return expand(payInvoice(ctx, invoice, p), p.expand);
      },
    },
    // Setup intents
    {
      method: "GET",
      pattern: new RegExp(`^/v1/setup_intents/${ID}$`),
      publishable: true,
      handler: (ctx, raw, [, id]) => {
        const p = params(raw, SI_RETRIEVE);
        const si = setupIntentForKey(ctx, id!, p);
        return ctx.auth === "publishable" ? publicSetupIntent(si) : expand(si, p.expand);
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^/v1/setup_intents/${ID}/confirm$`),
      publishable: true,
      handler: (ctx, raw, [, id]) => {
        const p = params(raw, ctx.auth === "publishable" ? SI_CONFIRM_PUBLISHABLE : SI_CONFIRM);
        const si = setupIntentForKey(ctx, id!, p);
        try {
          confirmSetupIntent(ctx, si, p);
        } catch (error) {
          // A publishable key sees the redacted SetupIntent in a card error too.
          if (error instanceof ApiError && error.error.setup_intent && ctx.auth === "publishable")
            error.error.setup_intent = publicSetupIntent(si);
          throw error;
        }
        return ctx.auth === "publishable" ? publicSetupIntent(si) : expand(si, p.expand);
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^/v1/events/${ID}$`),
      handler: (_ctx, raw, [, id]) => {
        params(raw, EXPAND_ONLY);
        const event = events.find((e) => e.id === id);
        if (!event) throw noSuch("event", id!);
        return clone(event);
      },
    },
  ];

  /** Refuses an impossible expansion before anything is created, as Stripe does. */
  function validateExpansion(type: string, paths: unknown) {
    const probe: Obj = {
      subscription: {
        object: "subscription",
        customer: null,
        latest_invoice: { object: "invoice", customer: null, default_payment_method: null },
        default_payment_method: null,
        items: { object: "list", data: [] },
      },
    }[type] ?? { object: type };
    for (const path of (paths as string[] | null | undefined) ?? []) {
      const parts = path.split(".");
      if (parts.length > 4) throw invalid(`You cannot expand more than 4 levels of a property. Property: ${path}`, { param: "expand" });
      let node: Obj | null = probe;
      let typeKey: string = type;
      for (const part of parts) {
        if (!node) break;
        if (node.object === "list" && part === "data") {
          node = null;
          break;
        }
        const nextType: string | undefined = typeof node.object === "string" ? node.object : typeKey;
        const allowed = nextType ? expanders[nextType]?.[part] : undefined;
        const child: unknown = node[part];
        if (!allowed && !(child && typeof child === "object"))
          throw invalid(`This property cannot be expanded (${path}).`, { param: "expand" });
        typeKey = `${nextType}.${part}`;
        node = child && typeof child === "object" ? (child as Obj) : null;
      }
    }
  }

  // ------------------------------------------------------------------ HTTP

  function authOf(req: http.IncomingMessage, raw: Obj): { kind: FakeStripeRequest["auth"]; key: string | null } {
    const header = req.headers.authorization ?? "";
    let key: string | null = null;
    const bearer = /^Bearer\s+(.+)$/i.exec(header);
    const basic = /^Basic\s+(.+)$/i.exec(header);
    if (bearer) key = bearer[1]!.trim();
    else if (basic) key = Buffer.from(basic[1]!, "base64").toString("utf8").split(":")[0] ?? "";
    else if (typeof raw.key === "string") key = raw.key;
    if (key === null) return { kind: "none", key };
    if (key === secretKey) return { kind: "secret", key };
    if (key === publishableKey) return { kind: "publishable", key };
    return { kind: "invalid", key };
  }

  function sendJson(res: http.ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
    res.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-cache, no-store", ...headers });
    res.end(body);
  }

  function errorBody(ctx: { requestId: string }, error: Obj) {
    return JSON.stringify(
      { error: { ...error, request_log_url: `https://dashboard.stripe.com/test/logs/${ctx.requestId}?t=${now()}` } },
      null,
      2,
    );
  }

  async function handleApi(req: http.IncomingMessage, res: http.ServerResponse, url: URL, rawBody: string) {
    const method = req.method ?? "GET";
    const path = url.pathname;
    const requestId = `req_${random(14)}`;
    const version = (req.headers["stripe-version"] as string | undefined) ?? FAKE_STRIPE_API_VERSION;
    res.setHeader("Request-Id", requestId);
    res.setHeader("Stripe-Version", version);
    const contentType = req.headers["content-type"] ?? "";
    let raw: Obj;
    if (method === "GET" || method === "DELETE") raw = { ...parseForm(url.search.slice(1)), ...(rawBody ? parseForm(rawBody) : {}) };
    else if (contentType.includes("application/json")) {
      sendJson(
        res,
        400,
        errorBody(
          { requestId },
          {
            type: "invalid_request_error",
            message: "Invalid request: the body must be form-encoded (application/x-www-form-urlencoded), not JSON.",
          },
        ),
      );
      return;
    } else raw = parseForm(rawBody);
    const idempotencyKey = (req.headers["idempotency-key"] as string | undefined) || undefined;
    const auth = authOf(req, raw);
    if ("key" in raw && auth.kind === "publishable") delete raw.key;
    requests.push({ method, path, body: raw, idempotencyKey, auth: auth.kind });

    const failure = failures.find((f) => f.remaining > 0 && f.method.toUpperCase() === method && path.startsWith(f.pathPrefix));
    if (failure) {
      failure.remaining -= 1;
      sendJson(res, failure.status, errorBody({ requestId }, { ...failure.error }));
      return;
    }
    if (auth.kind === "none") {
      sendJson(
        res,
        401,
        errorBody(
          { requestId },
          {
            type: "invalid_request_error",
            message:
              "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://docs.stripe.com/api#authentication for details, or we can help at https://support.stripe.com/.",
          },
        ),
      );
      return;
    }
    if (auth.kind === "invalid") {
      sendJson(
        res,
        401,
        errorBody({ requestId }, { type: "invalid_request_error", message: `Invalid API Key provided: ${redactKey(auth.key ?? "")}` }),
      );
      return;
    }
    const match = routes.map((route) => ({ route, m: route.method === method ? route.pattern.exec(path) : null })).find((r) => r.m);
    if (!match) {
      sendJson(
        res,
        404,
        errorBody(
          { requestId },
          {
            type: "invalid_request_error",
            message: `Unrecognized request URL (${method}: ${path}). Please see https://docs.stripe.com/api or we can help at https://support.stripe.com/.`,
          },
        ),
      );
      return;
    }
    if (auth.kind === "publishable" && !match.route.publishable) {
      sendJson(
        res,
        401,
        errorBody(
          { requestId },
          {
            type: "invalid_request_error",
            code: "secret_key_required",
            message:
              "This API call cannot be made with a publishable API key. Please use a secret API key. You can find a list of your API keys at https://dashboard.stripe.com/account/apikeys.",
          },
        ),
      );
      return;
    }
    const scope = `${auth.key}:${idempotencyKey}`;
    const fingerprint = `${method} ${path} ${method === "POST" ? rawBody : url.search}`;
    if (idempotencyKey && method !== "GET") {
      res.setHeader("Idempotency-Key", idempotencyKey);
      const previous = idempotent.get(scope);
      if (previous) {
        if (previous.fingerprint !== fingerprint) {
          sendJson(
            res,
            400,
            errorBody(
              { requestId },
              {
                type: "idempotency_error",
                message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
              },
            ),
          );
          return;
        }
        sendJson(res, previous.status, previous.body, { "Idempotent-Replayed": "true", "Original-Request": previous.requestId });
        return;
      }
    }
    const ctx: Ctx = { requestId, idempotencyKey, auth: auth.kind, events: [] };
    let status = 200;
    let body: string;
    let headers: Record<string, string> = {};
    let save = true;
    try {
      const result = match.route.handler(ctx, raw, match.m as unknown as string[]);
      body = JSON.stringify(result, null, 2);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      status = error.status;
      body = errorBody(ctx, error.error);
      headers = error.options.headers ?? {};
      if (error.options.validation) save = false;
    }
    if (idempotencyKey && method !== "GET" && save) idempotent.set(scope, { fingerprint, status, body, requestId });
    sendJson(res, status, body, headers);
    queueDeliveries(ctx.events);
  }

  async function handleCheckoutPage(req: http.IncomingMessage, res: http.ServerResponse, id: string, rawBody: string) {
    const html = (status: number, page: string) => {
      res.writeHead(status, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" });
      res.end(page);
    };
    const session = checkoutSessions.get(id);
    if (!session) return html(404, messagePage("Something went wrong", "The page you were looking for could not be found."));
    if (session.status === "expired" || session.expires_at < now()) {
      return html(410, messagePage("This Checkout Session has expired", "Return to the site and start again."));
    }
    if (session.status === "complete") {
      if (req.method === "POST") return html(409, messagePage("Already paid", "This Checkout Session is already complete."));
      return html(200, messagePage("Already paid", "This Checkout Session is already complete."));
    }
    if (req.method === "GET") return html(200, checkoutPage(session));
    if (req.method !== "POST") return html(405, messagePage("Method not allowed", "Use GET or POST."));
    const form = new URLSearchParams(rawBody);
    const card = (form.get("card_number") ?? "").replace(/\D/g, "");
    const email = (form.get("email") ?? "").trim();
    const ctx: Ctx = { requestId: `req_${random(14)}`, auth: "secret", events: [] };
    let problem: string | null;
    try {
      problem = card.length < 12 ? "Your card number is incomplete." : completeCheckout(ctx, session, card, email);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      problem = String(error.error.message);
    }
    if (problem) {
      html(402, checkoutPage(session, { error: problem, card: form.get("card_number") ?? "", email }));
      queueDeliveries(ctx.events);
      return;
    }
    if (session.success_url) {
      res.writeHead(303, { Location: String(session.success_url).replace(/\{CHECKOUT_SESSION_ID\}/g, session.id) });
      res.end();
    } else {
      html(200, messagePage("Thanks for your payment", "You can close this page."));
    }
    queueDeliveries(ctx.events);
  }

  const server = http.createServer((req, res) => {
    void (async () => {
      try {
        res.setHeader("Access-Control-Allow-Origin", "*");
        res.setHeader("Access-Control-Allow-Headers", "Authorization, Content-Type, Stripe-Version, Idempotency-Key, Stripe-Account");
        res.setHeader("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
        res.setHeader("Access-Control-Expose-Headers", "Request-Id, Stripe-Version, Idempotent-Replayed");
        res.setHeader("Access-Control-Max-Age", "300");
        const url = new URL(req.url ?? "/", origin);
        if (req.method === "OPTIONS") {
          res.writeHead(204);
          res.end();
          return;
        }
        const rawBody = await readBody(req);
        if (url.pathname === "/v3" || url.pathname === "/v3/") {
          res.writeHead(200, { "Content-Type": "application/javascript; charset=utf-8", "Cache-Control": "no-cache" });
          res.end(stripeJsSource(origin));
          return;
        }
        const checkout = /^\/checkout\/([^/]+)$/.exec(url.pathname);
        if (checkout) return await handleCheckoutPage(req, res, decodeURIComponent(checkout[1]!), rawBody);
        if (url.pathname.startsWith("/v1/")) return await handleApi(req, res, url, rawBody);
        res.writeHead(404, { "Content-Type": "text/plain" });
        res.end("Not found");
      } catch (error) {
        // A bug in the fake: make it loud.
        console.error("fake Stripe failed:", error);
        if (!res.headersSent)
          sendJson(res, 500, JSON.stringify({ error: { type: "api_error", message: `Fake Stripe failed: ${String(error)}` } }));
        else res.end();
      }
    })();
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const fake: FakeStripe = {
    url: origin,
    secretKey,
    publishableKey,
    jsUrl: `${origin}/v3/`,
    requests,
    customers,
    paymentIntents,
    paymentMethods,
    charges,
    refunds,
    checkoutSessions,
    setupIntents,
    products,
    prices,
    meters,
    meterEvents,
    meterEventErrors,
    subscriptions,
    invoices,
    events,
    deliveries,
    lastEvent(type) {
      for (let i = events.length - 1; i >= 0; i--) if (events[i]!.type === type) return events[i];
      return undefined;
    },
    setWebhook(url, secret) {
      const existing = webhooks.find((w) => w.url === url);
      if (existing) existing.secret = secret;
      else webhooks.push({ url, secret });
    },
    async resend(eventId) {
      const event = events.find((e) => e.id === eventId);
      if (!event) throw new Error(`fake Stripe: no event ${eventId}`);
      if (webhooks.length === 0) throw new Error("fake Stripe: no webhook endpoint set (setWebhook)");
      await fake.flush();
      let first = -1;
      for (const target of webhooks) {
        const status = await deliver(event, target);
        if (first === -1) first = status;
      }
      return first;
    },
    async flush() {
      let chain: Promise<void>;
      do {
        chain = deliveryChain;
        await chain;
      } while (chain !== deliveryChain);
    },
    failNext(match, status, error, times = 1) {
      failures.push({ method: match.method.toUpperCase(), pathPrefix: match.pathPrefix, status, error, remaining: times });
    },
    seedPaymentIntent(fields) {
      const pi = newPaymentIntent({
        amount: fields.amount ?? 1000,
        currency: fields.currency ?? "usd",
        metadata: fields.metadata,
        automatic_payment_methods: { enabled: true, allow_redirects: "always" },
      });
      if (fields.customer) {
        if (!customers.has(fields.customer)) throw new Error(`fake Stripe: no customer ${fields.customer}`);
        pi.customer = fields.customer;
      }
      const status = fields.status ?? "requires_payment_method";
      pi.status = status;
      if (status === "succeeded" || status === "requires_capture") {
        const pm = createPaymentMethod("4242424242424242");
        usedPaymentMethods.add(pm.id);
        const captured = status === "succeeded";
        const charge = store(charges, {
          id: newId("ch"),
          object: "charge",
          amount: pi.amount,
          amount_captured: captured ? pi.amount : 0,
          amount_refunded: 0,
          balance_transaction: captured ? newId("txn") : null,
          captured,
          created: now(),
          currency: pi.currency,
          customer: pi.customer,
          description: null,
          livemode: false,
          metadata: { ...pi.metadata },
          paid: true,
          payment_intent: pi.id,
          payment_method: pm.id,
          payment_method_details: {
            card: { brand: "visa", last4: "4242", exp_month: 12, exp_year: pm.card.exp_year, funding: "credit", country: "US" },
            type: "card",
          },
          refunded: false,
          status: "succeeded",
        });
        pi.payment_method = pm.id;
        pi.latest_charge = charge.id;
        if (captured) pi.amount_received = pi.amount;
        else pi.amount_capturable = pi.amount;
      } else if (status === "canceled") {
        pi.canceled_at = now();
      }
      return pi;
    },
    advanceSubscription(subscriptionId) {
      const sub = subscriptions.get(subscriptionId);
      if (!sub) throw new Error(`fake Stripe: no subscription ${subscriptionId}`);
      if (!["trialing", "active", "past_due", "unpaid"].includes(sub.status))
        throw new Error(`fake Stripe: subscription ${subscriptionId} is ${sub.status}; it has no billing period to end`);
      cycleSubscription(sub);
      return clone(sub);
    },
    trialWillEnd(subscriptionId) {
      const sub = subscriptions.get(subscriptionId);
      if (!sub) throw new Error(`fake Stripe: no subscription ${subscriptionId}`);
      if (sub.status !== "trialing") throw new Error(`fake Stripe: subscription ${subscriptionId} is ${sub.status}, not trialing`);
      return clone(emit(null, "customer.subscription.trial_will_end", sub));
    },
    async close() {
      closed = true;
      for (const controller of inflight) controller.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await deliveryChain.catch(() => undefined);
    },
  };
  return fake;
}
