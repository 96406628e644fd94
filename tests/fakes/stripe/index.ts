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
 *   fake.setWebhook(url, secret, { apiVersion }?)   add a webhook endpoint (same url again replaces
 *                                  its secret and version). Like Stripe, an endpoint gets its events in
 *                                  its own API version (the fake's by default); for a version before
 *                                  2025-03-31 (basil) an invoice carries its subscription as
 *                                  `invoice.subscription`, `subscription_details` and each line's
 *                                  `subscription`, not under `parent` (the rest of the object as today)
 *   fake.deliveries { eventId, type, url, status } per delivery attempt (status 0: no HTTP answer)
 *   fake.resend(eventId)           deliver an event again (a replay), newly signed; the first endpoint's status
 *   fake.flush()                   wait until every queued webhook delivery has been attempted
 *   fake.failNext({ method, pathPrefix }, status, { type, message, code? }, times = 1)
 *                                  the next N matching requests get that Stripe error (500 api_error,
 *                                  429 rate_limit_error…); like Stripe, such a failure is not kept for
 *                                  idempotent replay, so a retry with the same key runs for real;
 *                                  returns { stop() }, which ends the outage (times = Infinity: until then)
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
 * numbers sent with a secret key, a `return_url` (an absolute http(s) URL) on every confirmation of
 * a PaymentIntent or SetupIntent whose automatic payment methods allow redirects, from the server
 * (secret key) or from Stripe.js (publishable key: the Payment Element's `confirmParams.return_url`,
 * required even with `redirect: "if_required"`), reuse of an unattached PaymentMethod, duplicate
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
 * the real 24 h expiry of idempotency keys, Smart Retries (a
 * past_due invoice is only charged again by invoices.pay), invoice.created/finalized,
 * payment_method.attached and *.created events, SetupIntent create/update/cancel endpoints.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { stripeJsSource } from "../stripe-js";
import { ApiError } from "./validation";
import { now, random, parseForm, redactKey, type Ctx, readBody, newId, clone } from "./objects";
import type { FakeStripe, FakeStripeRequest, Obj } from "./types";
import { FAKE_STRIPE_API_VERSION, store, createState } from "./state";
import { queueDeliveries, deliver, emit } from "./events";
import { createPaymentMethod } from "./customers";
import { newPaymentIntent } from "./payment-intents";
import { cycleSubscription } from "./subscriptions";
import { messagePage, checkoutPage, completeCheckout } from "./checkout";
import { createRoutes } from "./routes";

export { FAKE_STRIPE_API_VERSION };

export type { FakeStripe, FakeStripeDelivery, FakeStripeErrorBody, FakeStripeRequest } from "./types";

// ---------------------------------------------------------------------------------------------

export async function startFakeStripe(options: { secretKey?: string; publishableKey?: string } = {}): Promise<FakeStripe> {
  const state = createState(options);
  const routes = createRoutes(state);

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
    if (key === state.secretKey) return { kind: "secret", key };
    if (key === state.publishableKey) return { kind: "publishable", key };
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
    state.requests.push({ method, path, body: raw, idempotencyKey, auth: auth.kind });

    const failure = state.failures.find((f) => f.remaining > 0 && f.method.toUpperCase() === method && path.startsWith(f.pathPrefix));
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
      const previous = state.idempotent.get(scope);
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
    if (idempotencyKey && method !== "GET" && save) state.idempotent.set(scope, { fingerprint, status, body, requestId });
    sendJson(res, status, body, headers);
    queueDeliveries(state, ctx.events);
  }

  async function handleCheckoutPage(req: http.IncomingMessage, res: http.ServerResponse, id: string, rawBody: string) {
    const html = (status: number, page: string) => {
      res.writeHead(status, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" });
      res.end(page);
    };
    const session = state.checkoutSessions.get(id);
    if (!session) return html(404, messagePage("Something went wrong", "The page you were looking for could not be found."));
    if (session.status === "expired" || session.expires_at < now()) {
      return html(410, messagePage("This Checkout Session has expired", "Return to the site and start again."));
    }
    if (session.status === "complete") {
      if (req.method === "POST") return html(409, messagePage("Already paid", "This Checkout Session is already complete."));
      return html(200, messagePage("Already paid", "This Checkout Session is already complete."));
    }
    if (req.method === "GET") return html(200, checkoutPage(state, session));
    if (req.method !== "POST") return html(405, messagePage("Method not allowed", "Use GET or POST."));
    const form = new URLSearchParams(rawBody);
    const card = (form.get("card_number") ?? "").replace(/\D/g, "");
    const email = (form.get("email") ?? "").trim();
    const ctx: Ctx = { requestId: `req_${random(14)}`, auth: "secret", events: [] };
    let problem: string | null;
    try {
      problem = card.length < 12 ? "Your card number is incomplete." : completeCheckout(state, ctx, session, card, email);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      problem = String(error.error.message);
    }
    if (problem) {
      html(402, checkoutPage(state, session, { error: problem, card: form.get("card_number") ?? "", email }));
      queueDeliveries(state, ctx.events);
      return;
    }
    if (session.success_url) {
      res.writeHead(303, { Location: String(session.success_url).replace(/\{CHECKOUT_SESSION_ID\}/g, session.id) });
      res.end();
    } else {
      html(200, messagePage("Thanks for your payment", "You can close this page."));
    }
    queueDeliveries(state, ctx.events);
  }

  const server = http.createServer((req, res) => {
    void (async () => {
      try {
        res.setHeader("Access-Control-Allow-Origin", "*");
        res.setHeader("Access-Control-Allow-Headers", "Authorization, Content-Type, Stripe-Version, Idempotency-Key, Stripe-Account");
        res.setHeader("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
        res.setHeader("Access-Control-Expose-Headers", "Request-Id, Stripe-Version, Idempotent-Replayed");
        res.setHeader("Access-Control-Max-Age", "300");
        const url = new URL(req.url ?? "/", state.origin);
        if (req.method === "OPTIONS") {
          res.writeHead(204);
          res.end();
          return;
        }
        const rawBody = await readBody(req);
        if (url.pathname === "/v3" || url.pathname === "/v3/") {
          res.writeHead(200, { "Content-Type": "application/javascript; charset=utf-8", "Cache-Control": "no-cache" });
          res.end(stripeJsSource(state.origin));
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
  state.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const fake: FakeStripe = {
    url: state.origin,
    secretKey: state.secretKey,
    publishableKey: state.publishableKey,
    jsUrl: `${state.origin}/v3/`,
    requests: state.requests,
    customers: state.customers,
    paymentIntents: state.paymentIntents,
    paymentMethods: state.paymentMethods,
    charges: state.charges,
    refunds: state.refunds,
    checkoutSessions: state.checkoutSessions,
    setupIntents: state.setupIntents,
    products: state.products,
    prices: state.prices,
    meters: state.meters,
    meterEvents: state.meterEvents,
    meterEventErrors: state.meterEventErrors,
    subscriptions: state.subscriptions,
    invoices: state.invoices,
    events: state.events,
    deliveries: state.deliveries,
    lastEvent(type) {
      for (let i = state.events.length - 1; i >= 0; i--) if (state.events[i]!.type === type) return state.events[i];
      return undefined;
    },
    setWebhook(url, secret, options = {}) {
      const existing = state.webhooks.find((w) => w.url === url);
      if (existing) Object.assign(existing, { secret, apiVersion: options.apiVersion });
      else state.webhooks.push({ url, secret, apiVersion: options.apiVersion });
    },
    async resend(eventId) {
      const event = state.events.find((e) => e.id === eventId);
      if (!event) throw new Error(`fake Stripe: no event ${eventId}`);
      if (state.webhooks.length === 0) throw new Error("fake Stripe: no webhook endpoint set (setWebhook)");
      await fake.flush();
      let first = -1;
      for (const target of state.webhooks) {
        const status = await deliver(state, event, target);
        if (first === -1) first = status;
      }
      return first;
    },
    async flush() {
      let chain: Promise<void>;
      do {
        chain = state.deliveryChain;
        await chain;
      } while (chain !== state.deliveryChain);
    },
    failNext(match, status, error, times = 1) {
      const failure = { method: match.method.toUpperCase(), pathPrefix: match.pathPrefix, status, error, remaining: times };
      state.failures.push(failure);
      return {
        stop() {
          failure.remaining = 0;
        },
      };
    },
    seedPaymentIntent(fields) {
      const pi = newPaymentIntent(state, {
        amount: fields.amount ?? 1000,
        currency: fields.currency ?? "usd",
        metadata: fields.metadata,
        automatic_payment_methods: { enabled: true, allow_redirects: "always" },
      });
      if (fields.customer) {
        if (!state.customers.has(fields.customer)) throw new Error(`fake Stripe: no customer ${fields.customer}`);
        pi.customer = fields.customer;
      }
      const status = fields.status ?? "requires_payment_method";
      pi.status = status;
      if (status === "succeeded" || status === "requires_capture") {
        const pm = createPaymentMethod(state, "4242424242424242");
        state.usedPaymentMethods.add(pm.id);
        const captured = status === "succeeded";
        const charge = store(state, state.charges, {
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
      const sub = state.subscriptions.get(subscriptionId);
      if (!sub) throw new Error(`fake Stripe: no subscription ${subscriptionId}`);
      if (!["trialing", "active", "past_due", "unpaid"].includes(sub.status))
        throw new Error(`fake Stripe: subscription ${subscriptionId} is ${sub.status}; it has no billing period to end`);
      cycleSubscription(state, sub);
      return clone(sub);
    },
    trialWillEnd(subscriptionId) {
      const sub = state.subscriptions.get(subscriptionId);
      if (!sub) throw new Error(`fake Stripe: no subscription ${subscriptionId}`);
      if (sub.status !== "trialing") throw new Error(`fake Stripe: subscription ${subscriptionId} is ${sub.status}, not trialing`);
      return clone(emit(state, null, "customer.subscription.trial_will_end", sub));
    },
    async close() {
      state.closed = true;
      for (const controller of state.inflight) controller.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await state.deliveryChain.catch(() => undefined);
    },
  };
  return fake;
}
