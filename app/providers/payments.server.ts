import Stripe from "stripe";
import type { Env } from "~/platform/env.server";

/**
 * Payments as the product needs them: take a payment (in the page or on a hosted checkout page),
 * check it, refund it, keep a card for a plan, bill usage, and read the provider's signed events.
 * Features speak only this interface; Stripe, through its official SDK, is the implementation.
 */
export interface Payments {
  /** A payment the customer confirms in the page (Stripe's Payment Element). */
  createPayment(input: PaymentInput, idempotencyKey: string): Promise<Payment>;
  /** The payment as the provider knows it now; null when the provider has no such payment. */
  findPayment(id: string): Promise<Payment | null>;
  /** A hosted payment page, for browsers without JavaScript. */
  createCheckout(input: CheckoutInput, idempotencyKey?: string): Promise<{ id: string; url: string }>;
  findCheckout(id: string): Promise<Checkout | null>;
  /** Gives a payment back in full; a payment that was already refunded counts as refunded. */
  refund(paymentId: string, metadata: Record<string, string>, idempotencyKey: string): Promise<{ refundId: string }>;
  createCustomer(
    input: { email: string; name: string; phone?: string; metadata: Record<string, string> },
    idempotencyKey: string,
  ): Promise<string>;
  /**
   * A monthly plan with a metered part: finds its prices by lookup key and creates product, meter
   * and prices the first time. Returns the price ids to subscribe to.
   */
  ensureMeteredPlan(plan: MeteredPlan): Promise<string[]>;
  /** Subscribes a customer, trialing until `trialEnd`; returns the subscription id. */
  subscribe(
    input: { customerId: string; priceIds: string[]; trialEnd: Date; paymentMethodId: string | null; metadata: Record<string, string> },
    idempotencyKey: string,
  ): Promise<string>;
  /** Reports usage to a meter; the identifier makes a retried report count once. */
  reportUsage(input: { meterEventName: string; customerId: string; identifier: string; value: number }): Promise<void>;
  /** Checks a webhook's signature (and its age) and reads the event; null when it does not verify. */
  verifyEvent(payload: string, signature: string): Promise<PaymentEvent | null>;
  /** Whether signed events can be checked (a webhook secret is configured). */
  readonly eventsConfigured: boolean;
}

export interface PaymentInput {
  amountCents: number;
  currency: string;
  description: string;
  metadata: Record<string, string>;
  customerId?: string;
  /** Keep the card for later charges made without the customer (a plan after a starter). */
  saveCardForLater?: boolean;
}

export interface CheckoutInput extends PaymentInput {
  productName: string;
  /** `{CHECKOUT_ID}` in the URL is replaced by the checkout's id. */
  successUrl: string;
  cancelUrl: string;
}

export interface Payment {
  id: string;
  /** "succeeded", "processing", "requires_payment_method", "canceled", … */
  status: string;
  amountCents: number;
  currency: string;
  metadata: Record<string, string>;
  /** What the browser needs to confirm the payment. */
  clientSecret: string | null;
  paymentMethodId: string | null;
}

export interface Checkout {
  id: string;
  paymentId: string | null;
  metadata: Record<string, string>;
}

export interface MeteredPlan {
  productName: string;
  currency: string;
  monthly: { lookupKey: string; amountCents: number; nickname: string };
  usage: { lookupKey: string; meterEventName: string; meterName: string; includedUnits: number; unitAmountCents: number; nickname: string };
  /** Bump when the plan's prices change, so new objects are made instead of old ones reused. */
  version: number;
}

export type PaymentEvent =
  | { id: string; kind: "payment_succeeded"; payment: Payment }
  | { id: string; kind: "checkout_completed"; checkout: Checkout }
  | { id: string; kind: "subscription_changed"; subscriptionId: string; status: string }
  | { id: string; kind: "other"; type: string };

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

function toPaymentsError(error: unknown) {
  if (!(error instanceof Stripe.errors.StripeError)) return error;
  const transient =
    error instanceof Stripe.errors.StripeConnectionError ||
    error instanceof Stripe.errors.StripeAPIError ||
    error instanceof Stripe.errors.StripeRateLimitError ||
    (error.statusCode ?? 0) >= 500;
  return new PaymentsError(error.message, transient);
}

/** Runs one provider request; the SDK's errors become PaymentsError. */
async function stripeRequest<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw toPaymentsError(error);
  }
}

/** Null without STRIPE_SECRET_KEY: pages then say payments are not configured. */
export function createPayments(env: Env): Payments | null {
  if (!env.STRIPE_SECRET_KEY) return null;
  return new StripePayments(createStripeClient(env.STRIPE_SECRET_KEY, env.STRIPE_API_URL), env.STRIPE_WEBHOOK_SECRET);
}

export function requirePayments(payments: Payments | null): Payments {
  if (!payments) throw new PaymentsNotConfiguredError();
  return payments;
}

/**
 * The official SDK. STRIPE_API_URL only moves it to another host (the tests' fake Stripe server);
 * every request is the one production makes.
 */
function createStripeClient(secretKey: string, apiUrl: string | undefined) {
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

class StripePayments implements Payments {
  constructor(
    private readonly stripe: Stripe,
    private readonly webhookSecret: string | undefined,
  ) {}

  get eventsConfigured() {
    return Boolean(this.webhookSecret);
  }

  async createPayment(input: PaymentInput, idempotencyKey: string) {
    const intent = await stripeRequest(() =>
      this.stripe.paymentIntents.create(
        {
          amount: input.amountCents,
          currency: input.currency,
          automatic_payment_methods: { enabled: true },
          description: input.description,
          metadata: input.metadata,
          ...(input.customerId ? { customer: input.customerId } : {}),
          ...(input.saveCardForLater ? { setup_future_usage: "off_session" as const } : {}),
        },
        { idempotencyKey },
      ),
    );
    return toPayment(intent);
  }

  async findPayment(id: string) {
    try {
      return toPayment(await this.stripe.paymentIntents.retrieve(id));
    } catch (error) {
      if (isMissing(error)) return null;
      throw toPaymentsError(error);
    }
  }

  async createCheckout(input: CheckoutInput, idempotencyKey?: string) {
    const session = await stripeRequest(() =>
      this.stripe.checkout.sessions.create(
        {
          mode: "payment",
          ...(input.customerId ? { customer: input.customerId } : {}),
          line_items: [
            {
              quantity: 1,
              price_data: { currency: input.currency, unit_amount: input.amountCents, product_data: { name: input.productName } },
            },
          ],
          payment_intent_data: {
            description: input.description,
            metadata: input.metadata,
            ...(input.saveCardForLater ? { setup_future_usage: "off_session" as const } : {}),
          },
          metadata: input.metadata,
          success_url: input.successUrl.replace("{CHECKOUT_ID}", "{CHECKOUT_SESSION_ID}"),
          cancel_url: input.cancelUrl,
        },
        idempotencyKey ? { idempotencyKey } : undefined,
      ),
    );
    if (!session.url) throw new Error("Stripe returned a Checkout Session without a URL");
    return { id: session.id, url: session.url };
  }

  async findCheckout(id: string) {
    try {
      return toCheckout(await this.stripe.checkout.sessions.retrieve(id));
    } catch (error) {
      if (isMissing(error)) return null;
      throw toPaymentsError(error);
    }
  }

  async refund(paymentId: string, metadata: Record<string, string>, idempotencyKey: string) {
    try {
      const refund = await this.stripe.refunds.create({ payment_intent: paymentId, metadata }, { idempotencyKey });
      return { refundId: refund.id };
    } catch (error) {
      if ((error as { code?: string }).code === "charge_already_refunded") return { refundId: "already_refunded" };
      throw toPaymentsError(error);
    }
  }

  async createCustomer(input: { email: string; name: string; phone?: string; metadata: Record<string, string> }, idempotencyKey: string) {
    const customer = await this.stripe.customers.create(
      { email: input.email, name: input.name, ...(input.phone ? { phone: input.phone } : {}), metadata: input.metadata },
      { idempotencyKey },
    );
    return customer.id;
  }

  async ensureMeteredPlan(plan: MeteredPlan) {
    const { monthly, usage, version } = plan;
    const found = await this.stripe.prices.list({ lookup_keys: [monthly.lookupKey, usage.lookupKey], active: true });
    let monthlyId = found.data.find((p) => p.lookup_key === monthly.lookupKey)?.id;
    let usageId = found.data.find((p) => p.lookup_key === usage.lookupKey)?.id;
    if (monthlyId && usageId) return [monthlyId, usageId];
    const product = await this.stripe.products.create(
      { name: plan.productName, metadata: { lookupKey: monthly.lookupKey } },
      { idempotencyKey: `${monthly.lookupKey}-product-v${version}` },
    );
    if (!monthlyId) {
      const price = await this.stripe.prices.create(
        {
          product: product.id,
          currency: plan.currency,
          unit_amount: monthly.amountCents,
          recurring: { interval: "month" },
          lookup_key: monthly.lookupKey,
          nickname: monthly.nickname,
        },
        { idempotencyKey: `${monthly.lookupKey}-v${version}` },
      );
      monthlyId = price.id;
    }
    if (!usageId) {
      const meters = await this.stripe.billing.meters.list();
      const meter =
        meters.data.find((m) => m.event_name === usage.meterEventName) ??
        (await this.stripe.billing.meters.create(
          { display_name: usage.meterName, event_name: usage.meterEventName, default_aggregation: { formula: "sum" } },
          { idempotencyKey: `${usage.meterEventName}-meter-v${version}` },
        ));
      const price = await this.stripe.prices.create(
        {
          product: product.id,
          currency: plan.currency,
          recurring: { interval: "month", usage_type: "metered", meter: meter.id },
          billing_scheme: "tiered",
          tiers_mode: "graduated",
          tiers: [
            { up_to: usage.includedUnits, unit_amount: 0 },
            { up_to: "inf", unit_amount: usage.unitAmountCents },
          ],
          lookup_key: usage.lookupKey,
          nickname: usage.nickname,
        },
        { idempotencyKey: `${usage.lookupKey}-v${version}` },
      );
      usageId = price.id;
    }
    return [monthlyId, usageId];
  }

  async subscribe(
    input: { customerId: string; priceIds: string[]; trialEnd: Date; paymentMethodId: string | null; metadata: Record<string, string> },
    idempotencyKey: string,
  ) {
    const subscription = await this.stripe.subscriptions.create(
      {
        customer: input.customerId,
        items: input.priceIds.map((price) => ({ price })),
        trial_end: Math.floor(input.trialEnd.getTime() / 1000),
        ...(input.paymentMethodId ? { default_payment_method: input.paymentMethodId } : {}),
        metadata: input.metadata,
      },
      { idempotencyKey },
    );
    return subscription.id;
  }

  async reportUsage(input: { meterEventName: string; customerId: string; identifier: string; value: number }) {
    try {
      await this.stripe.billing.meterEvents.create({
        event_name: input.meterEventName,
        identifier: input.identifier,
        payload: { stripe_customer_id: input.customerId, value: String(input.value) },
      });
    } catch (error) {
      // A retried report: Stripe refuses an identifier it has already counted.
      if (/already exists with identifier/i.test((error as Error).message)) return;
      throw error;
    }
  }

  async verifyEvent(payload: string, signature: string): Promise<PaymentEvent | null> {
    if (!this.webhookSecret) return null;
    let event: Stripe.Event;
    try {
      event = await this.stripe.webhooks.constructEventAsync(payload, signature, this.webhookSecret);
    } catch {
      return null;
    }
    switch (event.type) {
      case "payment_intent.succeeded":
        return { id: event.id, kind: "payment_succeeded", payment: toPayment(event.data.object) };
      case "checkout.session.completed":
        return { id: event.id, kind: "checkout_completed", checkout: toCheckout(event.data.object) };
      case "customer.subscription.created":
      case "customer.subscription.updated":
      case "customer.subscription.deleted":
        return {
          id: event.id,
          kind: "subscription_changed",
          subscriptionId: event.data.object.id,
          status: event.type === "customer.subscription.deleted" ? "canceled" : event.data.object.status,
        };
      default:
        return { id: event.id, kind: "other", type: event.type };
    }
  }
}

function toPayment(intent: Stripe.PaymentIntent): Payment {
  return {
    id: intent.id,
    status: intent.status,
    amountCents: intent.amount,
    currency: intent.currency,
    metadata: intent.metadata ?? {},
    clientSecret: intent.client_secret,
    paymentMethodId: typeof intent.payment_method === "string" ? intent.payment_method : (intent.payment_method?.id ?? null),
  };
}

function toCheckout(session: Stripe.Checkout.Session): Checkout {
  return {
    id: session.id,
    paymentId: typeof session.payment_intent === "string" ? session.payment_intent : (session.payment_intent?.id ?? null),
    metadata: session.metadata ?? {},
  };
}

function isMissing(error: unknown) {
  return (error as { code?: string }).code === "resource_missing";
}
