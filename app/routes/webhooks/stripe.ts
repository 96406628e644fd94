import type { Route } from "./+types/stripe";
import { recordWebhookHandled, wasWebhookHandled } from "#models/webhook-events";
import { activateWithPayment } from "~/server/business-onboarding.server";
import { startEmpathyCall } from "~/server/empathy.server";
import { apiError, methodNotAllowed } from "~/server/api.server";
import { servicesContext } from "~/server/context";
import type { Stripe } from "~/server/providers/payments.server";
import type { AppServices } from "~/server/services.server";
import { planFromSubscriptionStatus } from "#models/businesses";

/**
 * POST /webhooks/stripe. The signature (and its timestamp, so an old capture cannot be replayed)
 * is checked against STRIPE_WEBHOOK_SECRET before anything is read; each event id is handled once.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const { stripe, env } = services;
  if (!stripe || !env.STRIPE_WEBHOOK_SECRET) return apiError(503, "Stripe webhooks are not configured.");
  const signature = request.headers.get("Stripe-Signature");
  if (!signature) return apiError(400, "Missing Stripe-Signature header.");
  const payload = await request.text();
  let event: Stripe.Event;
  try {
    event = await stripe.webhooks.constructEventAsync(payload, signature, env.STRIPE_WEBHOOK_SECRET);
  } catch {
    return apiError(400, "Invalid signature.");
  }
  if (await wasWebhookHandled(services.db, event.id)) return Response.json({ received: true, duplicate: true });
  await handleEvent(services, event, env.APP_URL ?? new URL(request.url).origin);
  await recordWebhookHandled(services.db, { id: event.id, provider: "stripe", type: event.type });
  return Response.json({ received: true });
}

async function handleEvent(services: AppServices, event: Stripe.Event, origin: string) {
  switch (event.type) {
    case "payment_intent.succeeded": {
      const intent = event.data.object;
      if (intent.metadata?.purpose === "business_starter") {
        await activateWithPayment(services, Number(intent.metadata.businessId), intent.id, origin);
      }
      // The customer may have closed the tab after paying: the call is placed all the same.
      if (intent.metadata?.purpose === "empathy_call") await startEmpathyCall(services, intent.id, origin);
      return;
    }
    case "checkout.session.completed": {
      const session = event.data.object;
      const intentId = typeof session.payment_intent === "string" ? session.payment_intent : session.payment_intent?.id;
      if (session.metadata?.purpose === "business_starter" && intentId) {
        await activateWithPayment(services, Number(session.metadata.businessId), intentId, origin);
      }
      if (session.metadata?.purpose === "empathy_call" && intentId) await startEmpathyCall(services, intentId, origin);
      return;
    }
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted": {
      const subscription = event.data.object;
      await planFromSubscriptionStatus(services.db, subscription.id, event.type.endsWith("deleted") ? "canceled" : subscription.status);
      return;
    }
    default:
      return;
  }
}

/** Only POST is accepted. */
export const loader = methodNotAllowed;
