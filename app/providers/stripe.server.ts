import Stripe from "stripe";

// The Stripe SDK under both provider interfaces (payments.server.ts, billing.server.ts): the
// client, and its errors as the app's.

export class PaymentsNotConfiguredError extends Error {
  constructor() {
    super("Payments are not configured (STRIPE_SECRET_KEY is not set).");
  }
}

/** The payments provider failed or refused (unreachable, rate-limited, an API error): the customer gets a clear message, not a 500. */
export class PaymentsError extends Error {
  constructor(
    message: string,
    /** Worth trying again later: the network, the provider's own trouble, a rate limit. */
    readonly transient: boolean,
  ) {
    super(message);
  }
}

export function toPaymentsError(error: unknown) {
  if (!(error instanceof Stripe.errors.StripeError)) return error;
  const transient =
    error instanceof Stripe.errors.StripeConnectionError ||
    error instanceof Stripe.errors.StripeAPIError ||
    error instanceof Stripe.errors.StripeRateLimitError ||
    (error.statusCode ?? 0) >= 500;
  return new PaymentsError(error.message, transient);
}

/** Runs one provider request; the SDK's errors become PaymentsError. */
export async function stripeRequest<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw toPaymentsError(error);
  }
}

/**
 * The official SDK. STRIPE_API_URL only moves it to another host (the tests' fake Stripe server);
 * every request is the one production makes.
 */
export function createStripeClient(secretKey: string, apiUrl: string | undefined) {
  const api = apiUrl ? new URL(apiUrl) : null;
  return new Stripe(secretKey, {
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

/** A Checkout Session (`{CHECKOUT_ID}` in the success URL becomes its id) and its page's address. */
export async function hostedPage(stripe: Stripe, params: Stripe.Checkout.SessionCreateParams) {
  const session = await stripeRequest(() =>
    stripe.checkout.sessions.create({
      ...params,
      success_url: params.success_url?.replace("{CHECKOUT_ID}", "{CHECKOUT_SESSION_ID}"),
    }),
  );
  if (!session.url) throw new PaymentsError("Stripe returned a Checkout Session without a URL", true);
  return { id: session.id, url: session.url };
}

export const idOf = (value: string | { id: string } | null | undefined) => (typeof value === "string" ? value : (value?.id ?? null));

export function isMissing(error: unknown) {
  return (error as { code?: string }).code === "resource_missing";
}
