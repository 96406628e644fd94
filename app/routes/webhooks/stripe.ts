import type { Route } from "./+types/stripe";
import { recordWebhookHandled, wasWebhookHandled } from "#models/webhook-events";
import { activateWithPayment } from "~/features/business/signup/onboarding.server";
import { startEmpathyCall } from "~/features/empathy/empathy.server";
import { apiError, methodNotAllowed } from "~/platform/http/api.server";
import { servicesContext } from "~/platform/context";
import type { PaymentEvent } from "~/providers/payments.server";
import type { AppServices } from "~/platform/services.server";
import { syncBusinessPlan } from "~/features/business/plan.server";
import { resumePausedCalls } from "~/calls/engine.server";
import { cardSaved, invoiceEvent, syncSubscription } from "~/features/subscriptions/billing.server";

/**
 * POST /webhooks/stripe. The signature (and its timestamp, so an old capture cannot be replayed)
 * is checked against STRIPE_WEBHOOK_SECRET before anything is read; each event id is handled once.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const { payments } = services;
  if (!payments?.eventsConfigured) return apiError(503, "Stripe webhooks are not configured.");
  const signature = request.headers.get("Stripe-Signature");
  if (!signature) return apiError(400, "Missing Stripe-Signature header.");
  const event = await payments.verifyEvent(await request.text(), signature);
  if (!event) return apiError(400, "Invalid signature.");
  if (await wasWebhookHandled(services.db, event.id)) return Response.json({ received: true, duplicate: true });
  await handleEvent(services, event, services.publicOrigin());
  await recordWebhookHandled(services.db, { id: event.id, provider: "stripe", type: event.kind === "other" ? event.type : event.kind });
  return Response.json({ received: true });
}

async function handleEvent(services: AppServices, event: PaymentEvent, origin: string) {
  switch (event.kind) {
    case "payment_succeeded": {
      const { metadata, id } = event.payment;
      if (metadata.purpose === "business_starter") await activateWithPayment(services, Number(metadata.businessId), id, origin);
      // The customer may have closed the tab after paying: the call is placed all the same.
      if (metadata.purpose === "empathy_call") await startEmpathyCall(services, id, origin);
      return;
    }
    case "checkout_completed": {
      const { metadata, paymentId } = event.checkout;
      if (metadata.purpose === "business_starter" && paymentId) {
        await activateWithPayment(services, Number(metadata.businessId), paymentId, origin);
      }
      if (metadata.purpose === "empathy_call" && paymentId) await startEmpathyCall(services, paymentId, origin);
      if (metadata.purpose === "consumer_subscription" && event.checkout.subscriptionId) {
        await syncSubscription(services, event.checkout.subscriptionId, { subscriberId: Number(metadata.subscriberId) });
      }
      if (metadata.purpose === "subscription_card" && event.checkout.setupIntentId) {
        await cardSaved(services, { subscriberId: Number(metadata.subscriberId), setupIntentId: event.checkout.setupIntentId });
      }
      return;
    }
    case "subscription_changed":
      // A consumer's plan is read again from Stripe, so a late or replayed event applies what is true now.
      if (event.metadata.purpose === "consumer_subscription") await syncSubscription(services, event.subscriptionId);
      else {
        // A business's plan likewise: status, period and cancellation as Stripe says now; paid
        // again, the confirmation calls it held are placed.
        const synced = await syncBusinessPlan(services, event.subscriptionId);
        if (synced?.resumed) await resumePausedCalls(services, synced.business.id);
      }
      return;
    case "invoice_paid":
    case "invoice_failed":
      await invoiceEvent(services, event.kind, event.invoice);
      return;
    default:
      return;
  }
}

/** Only POST is accepted. */
export const loader = methodNotAllowed;
