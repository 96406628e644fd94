// SetupIntents: creating, confirming (saving a card) and the publishable-key view.
import { invalid, noSuch, docUrl, ApiError } from "./validation";
import { cardBehavior } from "./cards";
import { newId, random, now, mergeMetadata, PUBLIC_SI_FIELDS, clone, type Ctx, diff } from "./objects";
import type { Obj } from "./types";
import { store, type FakeStripeState } from "./state";
import { emit } from "./events";
import { CONFIRMABLE, paymentSource, requireReturnUrl } from "./payment-intents";

export function newSetupIntent(
  state: FakeStripeState,
  fields: { customer: string | null; description?: string | null; metadata?: unknown },
): Obj {
  const id = newId("seti");
  return store(state, state.setupIntents, {
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

export function publicSetupIntent(si: Obj): Obj {
  const out: Obj = {};
  for (const key of PUBLIC_SI_FIELDS) if (key in si) out[key] = clone(si[key]);
  return out;
}

export function setupIntentForKey(state: FakeStripeState, ctx: Ctx, id: string, p: Obj): Obj {
  const si = state.setupIntents.get(id);
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
export function setupWith(state: FakeStripeState, ctx: Ctx | null, si: Obj, pm: Obj): { ok: true } | { ok: false; error: Obj } {
  if (pm.customer && si.customer && pm.customer !== si.customer) {
    throw invalid(
      `The provided PaymentMethod belongs to a different Customer (${pm.customer}) than the one on this SetupIntent (${si.customer}).`,
      { param: "payment_method" },
    );
  }
  if (!pm.customer && state.usedPaymentMethods.has(pm.id)) {
    throw invalid(
      "The provided PaymentMethod was previously used with a PaymentIntent without Customer attachment, shared with a connected account without Customer attachment, or was detached from a Customer. It may not be used again. To use a PaymentMethod multiple times, you must attach it to a Customer first.",
      { param: "payment_method" },
    );
  }
  const behavior = cardBehavior(state.cardNumberOf.get(pm.id) ?? "");
  si.latest_attempt = newId("setatt");
  if (behavior.decline && !behavior.setupSucceeds) {
    state.usedPaymentMethods.add(pm.id);
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
    emit(state, ctx, "setup_intent.setup_failed", si);
    return { ok: false, error: { ...error, setup_intent: clone(si) } };
  }
  if (si.customer && !pm.customer) pm.customer = si.customer;
  si.last_setup_error = null;
  si.payment_method = pm.id;
  si.status = "succeeded";
  emit(state, ctx, "setup_intent.succeeded", si);
  const sub = state.subscriptions.get(state.subscriptionOfSetupIntent.get(si.id) ?? "");
  if (sub && sub.pending_setup_intent === si.id && sub.status !== "canceled") {
    const before = clone(sub);
    sub.pending_setup_intent = null;
    if (sub.payment_settings.save_default_payment_method === "on_subscription") sub.default_payment_method = pm.id;
    emit(state, ctx, "customer.subscription.updated", sub, diff(before, sub));
  }
  return { ok: true };
}

export function confirmSetupIntent(state: FakeStripeState, ctx: Ctx, si: Obj, p: Obj): Obj {
  if (!CONFIRMABLE.includes(si.status)) {
    throw invalid(
      `You cannot confirm this SetupIntent because it has a status of ${si.status}. Only a SetupIntent with one of the following statuses may be confirmed: ${CONFIRMABLE.join(", ")}.`,
      { code: "setup_intent_unexpected_state" },
    );
  }
  requireReturnUrl(si, p);
  const source = paymentSource(state, ctx, p);
  const pm = source.pm ?? (si.payment_method ? state.paymentMethods.get(si.payment_method) : undefined);
  if (!pm) {
    throw invalid(
      "You cannot confirm this SetupIntent because it's missing a payment method. You can either update the SetupIntent with a payment method and then confirm it again, or confirm it again directly with a payment method.",
      { code: "setup_intent_unexpected_state" },
    );
  }
  const result = setupWith(state, ctx, si, pm);
  if (!result.ok) throw new ApiError(402, result.error);
  return si;
}
