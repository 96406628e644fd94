// Subscriptions: items and billing periods, creation, updates, cancellation and renewal.
import { invalid, bad, ApiError, noSuch } from "./validation";
import { newId, now, mergeMetadata, clone, addInterval, diff, type Ctx } from "./objects";
import type { Obj } from "./types";
import { type FakeStripeState, store } from "./state";
import { emit } from "./events";
import { customerParam, paymentMethodOfCustomer } from "./customers";
import { newSetupIntent } from "./setup-intents";
import { priceParam, createPrice, priceAmount } from "./prices";
import { createInvoice, chargeSubscriptionInvoice, collectInvoice } from "./invoices";

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
    item.current_period_end = sub.status === "trialing" && sub.trial_end ? sub.trial_end : addInterval(start, r.interval, r.interval_count);
  }
  if (sub.cancel_at_period_end) sub.cancel_at = periodEnd(sub);
}

function periodEnd(sub: Obj): number {
  return Math.min(...(sub.items.data as Obj[]).map((item) => item.current_period_end));
}

/** The end of a subscription's current period (what a test clock reaching it would do). */
export function cycleSubscription(state: FakeStripeState, sub: Obj) {
  const t = now();
  const before = clone(sub);
  if (sub.cancel_at_period_end || (typeof sub.cancel_at === "number" && sub.cancel_at <= periodEnd(sub))) {
    sub.status = "canceled";
    sub.ended_at = t;
    sub.canceled_at = sub.canceled_at ?? t;
    sub.pending_setup_intent = null;
    emit(state, null, "customer.subscription.deleted", sub);
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
  const invoice = createInvoice(state, sub, "subscription_cycle", [], renewal);
  sub.latest_invoice = invoice.id;
  chargeSubscriptionInvoice(state, null, sub, invoice);
  emit(state, null, "customer.subscription.updated", sub, diff(before, sub));
}

export function newSubscription(state: FakeStripeState, ctx: Ctx, p: Obj, fromCheckout = false): Obj {
  const customer = customerParam(state, p.customer);
  if (!customer) throw bad("Missing required param: customer.", "customer", "parameter_missing");
  const itemParams = (p.items as Obj[] | undefined) ?? [];
  if (itemParams.length === 0) throw bad("Missing required param: items.", "items", "parameter_missing");
  const id = newId("sub");
  const items = itemParams.map((item, i) => {
    const path = `items[${i}]`;
    let price: Obj;
    if (item.price) price = priceParam(state, item.price, `${path}[price]`);
    else if (item.plan) price = priceParam(state, item.plan, `${path}[plan]`);
    else if (item.price_data) price = createPrice(state, item.price_data, `${path}[price_data]`, { active: false });
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
    if (p.trial_end <= start) throw invalid("Invalid timestamp: must be an integer Unix timestamp in the future.", { param: "trial_end" });
    if (p.trial_end > start + 730 * 86400)
      throw invalid("Invalid timestamp: can be no more than two years in the future.", { param: "trial_end" });
    trialEnd = p.trial_end;
  } else if (typeof p.trial_period_days === "number" && p.trial_period_days > 0) {
    trialEnd = start + p.trial_period_days * 86400;
  }
  let pm: Obj | null = null;
  if (p.default_payment_method) pm = paymentMethodOfCustomer(state, customer, p.default_payment_method, "default_payment_method");
  else if (customer.invoice_settings.default_payment_method)
    pm = state.paymentMethods.get(customer.invoice_settings.default_payment_method) ?? null;
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
  store(state, state.subscriptions, sub);
  const invoice = createInvoice(state, sub, "subscription_create", oneTime);
  sub.latest_invoice = invoice.id;
  const outcome = collectInvoice(state, ctx, invoice, behavior, pm);
  if (outcome === "paid" && sub.status !== "trialing") sub.status = "active";
  // Nothing to pay now and no card yet: a SetupIntent for the customer to save one (trials).
  if (invoice.amount_due === 0 && !pm && behavior === "default_incomplete" && sub.collection_method === "charge_automatically") {
    const si = newSetupIntent(state, { customer: customer.id });
    state.subscriptionOfSetupIntent.set(si.id, sub.id);
    sub.pending_setup_intent = si.id;
  }
  if (outcome === "failed" && behavior === "error_if_incomplete") {
    state.subscriptions.delete(sub.id);
    const pi = state.paymentIntents.get(state.confirmationSecretOf.get(invoice.id)?.client_secret.split("_secret_")[0] ?? "");
    throw new ApiError(402, {
      ...(pi?.last_payment_error ?? { type: "card_error", code: "card_declined", message: "Your card was declined." }),
      payment_intent: clone(pi),
    });
  }
  emit(state, ctx, "customer.subscription.created", sub);
  return sub;
}

export function updateSubscription(state: FakeStripeState, ctx: Ctx, sub: Obj, p: Obj): Obj {
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
  const customer = state.customers.get(sub.customer)!;
  if ("default_payment_method" in p) {
    sub.default_payment_method =
      p.default_payment_method === null
        ? null
        : paymentMethodOfCustomer(state, customer, p.default_payment_method, "default_payment_method").id;
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
            ? priceParam(state, item.price, `${path}[price]`)
            : createPrice(state, item.price_data, `${path}[price_data]`, { active: false });
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
          ? priceParam(state, item.price, `${path}[price]`)
          : item.price_data
            ? createPrice(state, item.price_data, `${path}[price_data]`, { active: false })
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
        const invoice = createInvoice(state, sub, "subscription_update");
        sub.latest_invoice = invoice.id;
        chargeSubscriptionInvoice(state, ctx, sub, invoice);
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
  if (Object.keys(changes).length > 0) emit(state, ctx, "customer.subscription.updated", sub, changes);
  return sub;
}

export function cancelSubscription(state: FakeStripeState, ctx: Ctx, sub: Obj, p: Obj): Obj {
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
  emit(state, ctx, "customer.subscription.deleted", sub);
  return sub;
}
