// Events and webhook deliveries: emit records an event and queues it (or adds it to the request's
// events, posted once the response has gone out); each delivery is signed for its endpoint.
import { type Ctx, newId, now, clone } from "./objects";
import type { Obj } from "./types";
import { FAKE_STRIPE_API_VERSION, type FakeStripeState } from "./state";

export function emit(state: FakeStripeState, ctx: Ctx | null, type: string, object: Obj, previous?: Obj): Obj {
  const event: Obj = {
    id: newId("evt"),
    object: "event",
    api_version: FAKE_STRIPE_API_VERSION,
    created: now(),
    data:
      previous && Object.keys(previous).length > 0 ? { object: clone(object), previous_attributes: previous } : { object: clone(object) },
    livemode: false,
    pending_webhooks: state.webhooks.length,
    request: { id: ctx?.requestId ?? null, idempotency_key: ctx?.idempotencyKey ?? null },
    type,
  };
  state.events.push(event);
  if (ctx) ctx.events.push(event);
  else queueDeliveries(state, [event]);
  return event;
}

/** Basil (2025-03-31) moved an invoice's subscription under `parent`. */
const BASIL = "2025-03-31";

/**
 * The event as an endpoint of `apiVersion` receives it. Stripe renders each event in the
 * endpoint's version; of the changes since, the fake renders the one the app reads: before basil,
 * an invoice named its subscription itself (`subscription`, `subscription_details.metadata`) and
 * so did each subscription line (`subscription`, `subscription_item`, `type`), without `parent`.
 */
export function inVersion(event: Obj, apiVersion: string | undefined): Obj {
  if (!apiVersion || apiVersion === event.api_version) return event;
  const out = clone(event);
  out.api_version = apiVersion;
  const object = out.data?.object;
  if (apiVersion < BASIL && object?.object === "invoice") {
    const details = object.parent?.subscription_details;
    object.subscription = details?.subscription ?? null;
    object.subscription_details = details ? { metadata: details.metadata ?? {} } : null;
    delete object.parent;
    for (const line of object.lines?.data ?? []) {
      const item = line.parent?.subscription_item_details;
      line.subscription = item?.subscription ?? line.parent?.invoice_item_details?.subscription ?? null;
      line.subscription_item = item?.subscription_item ?? null;
      line.type = item ? "subscription" : "invoiceitem";
      delete line.parent;
    }
  }
  return out;
}

export async function deliver(
  state: FakeStripeState,
  event: Obj,
  target: { url: string; secret: string; apiVersion?: string },
): Promise<number> {
  const payload = JSON.stringify(inVersion(event, target.apiVersion), null, 2);
  const header = state.signer.webhooks.generateTestHeaderString({ payload, secret: target.secret });
  const controller = new AbortController();
  state.inflight.add(controller);
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
    state.inflight.delete(controller);
  }
  state.deliveries.push({ eventId: event.id, type: event.type, url: target.url, status });
  return status;
}

export function queueDeliveries(state: FakeStripeState, batch: Obj[]) {
  if (batch.length === 0) return;
  state.deliveryChain = state.deliveryChain.then(async () => {
    for (const event of batch) {
      for (const target of [...state.webhooks]) {
        if (state.closed) return;
        await deliver(state, event, target);
      }
    }
  });
}
