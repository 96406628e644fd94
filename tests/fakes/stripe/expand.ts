// Expansion (`expand[]`): which fields of which objects can be expanded, and expanding them.
import { invalid } from "./validation";
import { list, clone } from "./objects";
import type { Obj } from "./types";
import type { FakeStripeState } from "./state";

const expanders: Record<string, Record<string, (state: FakeStripeState, value: unknown, parent: Obj) => unknown>> = {
  payment_intent: {
    customer: (state, v) => lookup(state.customers, v),
    payment_method: (state, v) => lookup(state.paymentMethods, v),
    latest_charge: (state, v) => lookup(state.charges, v),
  },
  charge: { customer: (state, v) => lookup(state.customers, v), payment_intent: (state, v) => lookup(state.paymentIntents, v) },
  refund: { charge: (state, v) => lookup(state.charges, v), payment_intent: (state, v) => lookup(state.paymentIntents, v) },
  customer: {},
  "customer.invoice_settings": { default_payment_method: (state, v) => lookup(state.paymentMethods, v) },
  "checkout.session": {
    customer: (state, v) => lookup(state.customers, v),
    payment_intent: (state, v) => lookup(state.paymentIntents, v),
    subscription: (state, v) => lookup(state.subscriptions, v),
    setup_intent: (state, v) => lookup(state.setupIntents, v),
    invoice: (state, v) => lookup(state.invoices, v),
    line_items: (state, _v, parent) =>
      list(clone(state.lineItemsOf.get(parent.id) ?? []), `/v1/checkout/sessions/${parent.id}/line_items`, 100),
  },
  subscription: {
    customer: (state, v) => lookup(state.customers, v),
    latest_invoice: (state, v) => lookup(state.invoices, v),
    default_payment_method: (state, v) => lookup(state.paymentMethods, v),
    pending_setup_intent: (state, v) => lookup(state.setupIntents, v),
  },
  invoice: {
    customer: (state, v) => lookup(state.customers, v),
    default_payment_method: (state, v) => lookup(state.paymentMethods, v),
    confirmation_secret: (state, _v, parent) => clone(state.confirmationSecretOf.get(parent.id) ?? null),
  },
  price: { product: (state, v) => lookup(state.products, v) },
  payment_method: { customer: (state, v) => lookup(state.customers, v) },
  setup_intent: { customer: (state, v) => lookup(state.customers, v), payment_method: (state, v) => lookup(state.paymentMethods, v) },
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

function expandAt(state: FakeStripeState, target: unknown, parts: string[], full: string, typeKey?: string) {
  if (!target || typeof target !== "object") return;
  const obj = target as Obj;
  const [head, ...rest] = parts;
  if (head === undefined) return;
  const type = typeof obj.object === "string" ? obj.object : typeKey;
  if (obj.object === "list" && head === "data") {
    if (rest.length === 0) throw invalid(`This property cannot be expanded (${full}).`, { param: "expand" });
    for (const item of obj.data as Obj[]) expandAt(state, item, rest, full);
    return;
  }
  const expander = type ? expanders[type]?.[head] : undefined;
  if (expander) {
    obj[head] = expander(state, obj[head], obj);
    expandAt(state, obj[head], rest, full);
    return;
  }
  if (rest.length > 0 && obj[head] && typeof obj[head] === "object") {
    expandAt(state, obj[head], rest, full, type ? `${type}.${head}` : undefined);
    return;
  }
  throw invalid(`This property cannot be expanded (${full}).`, { param: "expand" });
}

export function expand<T extends Obj>(state: FakeStripeState, object: T, paths: unknown, prefix = ""): T {
  const out = clone(object);
  for (const path of (paths as string[] | null | undefined) ?? []) {
    const parts = path.split(".");
    if (parts.length > 4) throw invalid(`You cannot expand more than 4 levels of a property. Property: ${path}`, { param: "expand" });
    expandAt(state, out, prefix ? [prefix, ...parts] : parts, path);
  }
  return out;
}

/** Refuses an impossible expansion before anything is created, as Stripe does. */
export function validateExpansion(type: string, paths: unknown) {
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
