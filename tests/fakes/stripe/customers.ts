// Customers and payment methods: creating and attaching cards, resolving PaymentMethod parameters.
import { noSuch, invalid } from "./validation";
import { cardBehavior, TEST_PAYMENT_METHODS } from "./cards";
import { newId, random, now, mergeMetadata } from "./objects";
import type { Obj } from "./types";
import { type FakeStripeState, store } from "./state";

export function customerParam(state: FakeStripeState, id: unknown, param = "customer") {
  if (id === undefined || id === null) return null;
  const found = state.customers.get(String(id));
  if (!found || found.deleted) throw noSuch("customer", String(id), param);
  return found;
}

export function checkEmail(email: unknown) {
  if (typeof email === "string" && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
    throw invalid(`Invalid email address: ${email}`, { param: "email", code: "email_invalid" });
  }
}

export function createPaymentMethod(state: FakeStripeState, number: string): Obj {
  const behavior = cardBehavior(number);
  const year = new Date().getUTCFullYear() + 3;
  const pm = store(state, state.paymentMethods, {
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
  state.cardNumberOf.set(pm.id, number);
  return pm;
}

export function resolvePaymentMethod(state: FakeStripeState, ref: string, param: string): Obj {
  const testCard = TEST_PAYMENT_METHODS[ref];
  if (testCard) return createPaymentMethod(state, testCard);
  const found = state.paymentMethods.get(ref);
  if (!found) throw invalid(`No such PaymentMethod: '${ref}'`, { code: "resource_missing", param });
  return found;
}

export function attachPaymentMethod(state: FakeStripeState, pm: Obj, customer: Obj) {
  if (pm.customer && pm.customer !== customer.id) {
    throw invalid(`The payment method you provided has already been attached to a customer.`, { param: "payment_method" });
  }
  if (!pm.customer && state.usedPaymentMethods.has(pm.id)) {
    throw invalid(
      "This PaymentMethod was previously used without being attached to a Customer or was detached from a Customer, and may not be used again.",
      { param: "payment_method" },
    );
  }
  pm.customer = customer.id;
}

export function paymentMethodOfCustomer(state: FakeStripeState, customer: Obj, id: string, param: string): Obj {
  const pm = TEST_PAYMENT_METHODS[id] ? undefined : state.paymentMethods.get(id);
  if (!pm || pm.customer !== customer.id) {
    throw invalid(`The customer does not have a payment method with the ID ${id}. The payment method must be attached to the customer.`, {
      param,
      code: "resource_missing",
    });
  }
  return pm;
}

export function createCustomer(state: FakeStripeState, p: Obj): Obj {
  checkEmail(p.email);
  const customer = store(state, state.customers, {
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

export function updateCustomerFields(state: FakeStripeState, customer: Obj, p: Obj) {
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
          : paymentMethodOfCustomer(state, customer, settings.default_payment_method, "invoice_settings[default_payment_method]").id;
    }
    if ("footer" in settings) customer.invoice_settings.footer = settings.footer;
  }
}
