import type Stripe from "stripe";
import { expect } from "vitest";
import { httpClient } from "./http-client";

export interface PaidCallRequest {
  /** The app's address. */
  url: string;
  /** Stripe's API on the fake, to confirm the PaymentIntent as Stripe.js would. */
  stripe: Stripe;
  phone: string;
  /** The visitor's address (X-Forwarded-For, behind TRUST_PROXY). */
  forwardedFor: string;
  /** The call's language as the page sends it: "english" unless given. */
  language?: string;
  email?: string;
}

/**
 * What a caller's browser does for a $5 call: the PaymentIntent through the app, paid with a card
 * as Stripe.js would, then the call asked for. Resolves with the intent, the request's status page
 * and the visitor's client (its cookies), for the test to follow the call from there.
 */
export async function payAndAskForCall(request: PaidCallRequest) {
  const client = httpClient(request.url, { forwardedFor: request.forwardedFor });
  const created = await client.postJson("/api/create-payment-intent", {
    amount: 5,
    phone: request.phone,
    ...(request.email ? { email: request.email } : {}),
    language: request.language ?? "english",
    voice: "female",
    adult: true,
    recordingAccepted: true,
  });
  expect(created.status).toBe(200);
  const { paymentIntentId, statusUrl } = (await created.json()) as { paymentIntentId: string; statusUrl: string };
  await request.stripe.paymentIntents.confirm(paymentIntentId, { payment_method: "pm_card_visa", return_url: `${request.url}/` });
  expect((await client.postJson("/api/empathy/start-call", { paymentIntentId })).status).toBe(200);
  return { paymentIntentId, statusUrl, client, token: statusUrl.split("/").pop()! };
}
