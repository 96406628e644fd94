// Checkout Sessions: creation, the hosted payment page and completing a session.
import { invalid, bad } from "./validation";
import { cardBehavior } from "./cards";
import { checkCurrency, MINIMUM_CHARGE, formatAmount, random, now, mergeMetadata, newId, clone, type Ctx, escapeHtml } from "./objects";
import type { Obj } from "./types";
import { store, type FakeStripeState } from "./state";
import { emit } from "./events";
import { checkEmail, customerParam, createCustomer, createPaymentMethod } from "./customers";
import { newPaymentIntent, chargeIntent } from "./payment-intents";
import { newSetupIntent, setupWith } from "./setup-intents";
import { priceParam, createPrice, priceAmount } from "./prices";
import { newSubscription } from "./subscriptions";

export function createCheckoutSession(state: FakeStripeState, p: Obj): Obj {
  const lineParams = (p.line_items as Obj[] | undefined) ?? [];
  const resolved = lineParams.map((item, i) => {
    const path = `line_items[${i}]`;
    let price: Obj;
    if (item.price && item.price_data)
      throw invalid(`You may only specify one of these parameters: ${path}[price], ${path}[price_data].`, {
        param: `${path}[price]`,
        code: "parameters_exclusive",
      });
    if (item.price) price = priceParam(state, item.price, `${path}[price]`);
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
      price = createPrice(state, pd, `${path}[price_data]`, { active: false });
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
  const customer = customerParam(state, p.customer);
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
  const session = store(state, state.checkoutSessions, {
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
    url: uiMode === "hosted_page" ? `${state.origin}/checkout/${id}` : null,
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
  state.lineItemsOf.set(
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
        description: state.products.get(r.price.product)?.name ?? null,
        metadata: {},
        price: clone(r.price),
        quantity: r.quantity,
      };
    }),
  );
  return session;
}

/** Pays a session from the hosted page. Returns an error message for the page, or null when complete. */
export function completeCheckout(state: FakeStripeState, ctx: Ctx, session: Obj, cardNumber: string, email: string): string | null {
  const extra = (session as Obj & { _params: Obj })._params;
  const behavior = cardBehavior(cardNumber);
  if (email) {
    try {
      checkEmail(email);
    } catch {
      return "Your email address is invalid.";
    }
  }
  const payerEmail = email || (session.customer ? state.customers.get(session.customer)?.email : null) || session.customer_email || null;
  const ensureCustomer = () => {
    if (!session.customer) session.customer = createCustomer(state, { email: payerEmail ?? undefined }).id;
    return state.customers.get(session.customer)!;
  };
  if (session.mode === "payment") {
    const pid = extra.payment_intent_data as Obj;
    let pi = state.intentOfSession.has(session.id) ? state.paymentIntents.get(state.intentOfSession.get(session.id)!) : undefined;
    if (!pi) {
      if (session.customer_creation === "always" || (pid.setup_future_usage && !session.customer)) ensureCustomer();
      pi = newPaymentIntent(state, {
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
      state.intentOfSession.set(session.id, pi.id);
      session.payment_intent = pi.id;
    }
    const result = chargeIntent(state, ctx, pi, createPaymentMethod(state, cardNumber));
    if (!result.ok) return String(result.error.message);
    session.payment_status = pi.status === "succeeded" ? "paid" : "unpaid";
  } else if (session.mode === "subscription") {
    if (behavior.decline && !behavior.setupSucceeds) return behavior.decline.message;
    const customer = ensureCustomer();
    const pm = createPaymentMethod(state, cardNumber);
    pm.customer = customer.id;
    const sd = extra.subscription_data as Obj;
    const lines = state.lineItemsOf.get(session.id) ?? [];
    const sub = newSubscription(
      state,
      ctx,
      {
        customer: customer.id,
        items: lines
          .filter((l) => l.price.type === "recurring")
          .map((l) => ({ price: l.price.id, quantity: l.price.recurring.usage_type === "metered" ? undefined : l.quantity })),
        _one_time: lines
          .filter((l) => l.price.type !== "recurring")
          .map((l) => ({ price: state.prices.get(l.price.id), quantity: l.quantity })),
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
    session.payment_status = state.invoices.get(sub.latest_invoice)?.amount_due ? "paid" : "no_payment_required";
  } else {
    if (behavior.decline && !behavior.setupSucceeds) return behavior.decline.message;
    const sid = extra.setup_intent_data as Obj;
    const si = newSetupIntent(state, { customer: session.customer, description: sid.description, metadata: sid.metadata });
    const result = setupWith(state, ctx, si, createPaymentMethod(state, cardNumber));
    if (!result.ok) return String(result.error.message);
    session.setup_intent = si.id;
  }
  session.status = "complete";
  const customer = session.customer ? state.customers.get(session.customer) : undefined;
  session.customer_details = {
    address: null,
    email: payerEmail ?? customer?.email ?? null,
    name: customer?.name ?? null,
    phone: null,
    tax_exempt: "none",
    tax_ids: [],
  };
  emit(state, ctx, "checkout.session.completed", session);
  return null;
}

export function checkoutPage(state: FakeStripeState, session: Obj, opts: { error?: string; card?: string; email?: string } = {}) {
  const lines = state.lineItemsOf.get(session.id) ?? [];
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

export function messagePage(title: string, text: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></main></body></html>`;
}
