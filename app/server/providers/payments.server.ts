import Stripe from "stripe";
import type { Env } from "../env.server";

export class PaymentsNotConfiguredError extends Error {
  constructor() {
    super("Payments are not configured (STRIPE_SECRET_KEY is not set).");
  }
}

export type PaymentIntent = Stripe.PaymentIntent;

/**
 * Stripe, through the official SDK. STRIPE_API_URL only moves the SDK to another host (the tests'
 * fake Stripe server); every request is the one production makes.
 */
export function createStripeClient(env: Env): Stripe | null {
  if (!env.STRIPE_SECRET_KEY) return null;
  const api = env.STRIPE_API_URL ? new URL(env.STRIPE_API_URL) : null;
  return new Stripe(env.STRIPE_SECRET_KEY, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    appInfo: { name: "Sakina", version: "3.0.0" },
    ...(api
      ? {
          host: api.hostname,
          port: Number(api.port || (api.protocol === "https:" ? 443 : 80)),
          protocol: api.protocol.replace(":", "") as "http" | "https",
        }
      : {}),
  });
}

export function requireStripe(stripe: Stripe | null): Stripe {
  if (!stripe) throw new PaymentsNotConfiguredError();
  return stripe;
}

/** Stripe errors that are worth trying again (network, rate limit, Stripe's own 5xx). */
export function isTransientStripeError(error: unknown) {
  return (
    error instanceof Stripe.errors.StripeConnectionError ||
    error instanceof Stripe.errors.StripeRateLimitError ||
    error instanceof Stripe.errors.StripeAPIError
  );
}

export { Stripe };
