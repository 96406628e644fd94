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
  /** A monthly price found by its lookup key, created (with its product) the first time. */
  ensureMonthlyPrice(price: MonthlyPrice): Promise<string>;
  /**
   * Subscribes a customer with a trial, the card collected now in the page: the subscription waits
   * for the card (a SetupIntent whose client secret the Payment Element confirms).
   */
  startTrial(
    input: { customerId: string; priceId: string; trialDays: number; metadata: Record<string, string> },
    idempotencyKey: string,
  ): Promise<{ subscriptionId: string; clientSecret: string | null }>;
  /** The same on Stripe's hosted page, for browsers without JavaScript. */
  createTrialCheckout(input: {
    customerId: string;
    priceId: string;
    trialDays: number;
    metadata: Record<string, string>;
    successUrl: string;
    cancelUrl: string;
  }): Promise<{ id: string; url: string }>;
  /** A hosted page that saves a new card for the customer (setup mode). */
  createCardCheckout(input: {
    customerId: string;
    currency: string;
    metadata: Record<string, string>;
    successUrl: string;
    cancelUrl: string;
  }): Promise<{ id: string; url: string }>;
  /** The subscription as the provider knows it now; null when there is no such subscription. */
  findSubscription(id: string): Promise<SubscriptionState | null>;
  /** Ends the trial now: billing starts at once. */
  endTrialNow(subscriptionId: string): Promise<SubscriptionState>;
  /** Cancels at the end of the period (true) or takes that back (false). */
  setCancelAtPeriodEnd(subscriptionId: string, cancel: boolean): Promise<SubscriptionState>;
  /** Cancels at once (the account is being deleted). */
  cancelNow(subscriptionId: string): Promise<void>;
  /** Deletes the customer, and with it the name, e-mail and phone the provider holds (the account is being deleted). */
  deleteCustomer(customerId: string): Promise<void>;
  /**
   * Makes the card of a succeeded SetupIntent the subscription's card, and pays the open invoice
   * with it when a payment had failed. Returns the new state.
   */
  useCardFromSetup(subscriptionId: string, setupIntentId: string): Promise<SubscriptionState>;
  /** Reports usage to a meter; the identifier makes a retried report count once. */
  /** `at`: when the usage happened, so a call late in a period is billed to that period. */
  reportUsage(input: { meterEventName: string; customerId: string; identifier: string; value: number; at?: Date }): Promise<void>;
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
  mode: "payment" | "setup" | "subscription";
  /** "complete" once the customer finished on the page. */
  status: string | null;
  paymentId: string | null;
  subscriptionId: string | null;
  setupIntentId: string | null;
  customerId: string | null;
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

export interface MonthlyPrice {
  lookupKey: string;
  productName: string;
  amountCents: number;
  currency: string;
}

export interface SubscriptionState {
  id: string;
  customerId: string;
  /** trialing, active, past_due, canceled, incomplete, incomplete_expired, unpaid, paused. */
  status: string;
  trialEnd: Date | null;
  periodStart: Date;
  periodEnd: Date;
  cancelAtPeriodEnd: boolean;
  hasCard: boolean;
  metadata: Record<string, string>;
}

export type PaymentEvent =
  | { id: string; kind: "payment_succeeded"; payment: Payment }
  | { id: string; kind: "checkout_completed"; checkout: Checkout }
  | { id: string; kind: "subscription_changed"; subscriptionId: string; status: string; metadata: Record<string, string> }
  | { id: string; kind: "invoice_paid" | "invoice_failed"; invoice: InvoiceFacts }
  | { id: string; kind: "setup_succeeded"; setupIntentId: string; customerId: string | null; metadata: Record<string, string> }
  | { id: string; kind: "other"; type: string };

export interface InvoiceFacts {
  id: string;
  subscriptionId: string | null;
  customerId: string | null;
  amountCents: number;
  currency: string;
  /** Stripe's page for the invoice (a receipt once paid). */
  url: string | null;
  billingReason: string | null;
}

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
    if (!session.url) throw new PaymentsError("Stripe returned a Checkout Session without a URL", true);
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

  async ensureMonthlyPrice(price: MonthlyPrice) {
    return stripeRequest(async () => {
      const found = await this.stripe.prices.list({ lookup_keys: [price.lookupKey], active: true });
      const existing = found.data.find((p) => p.lookup_key === price.lookupKey);
      if (existing) return existing.id;
      const product = await this.stripe.products.create({ name: price.productName }, { idempotencyKey: `${price.lookupKey}-product` });
      const created = await this.stripe.prices.create(
        {
          product: product.id,
          currency: price.currency,
          unit_amount: price.amountCents,
          recurring: { interval: "month" },
          lookup_key: price.lookupKey,
          nickname: price.productName,
        },
        { idempotencyKey: `${price.lookupKey}-price` },
      );
      return created.id;
    });
  }

  async startTrial(
    input: { customerId: string; priceId: string; trialDays: number; metadata: Record<string, string> },
    idempotencyKey: string,
  ) {
    const subscription = await stripeRequest(() =>
      this.stripe.subscriptions.create(
        {
          customer: input.customerId,
          items: [{ price: input.priceId }],
          trial_period_days: input.trialDays,
          payment_behavior: "default_incomplete",
          payment_settings: { save_default_payment_method: "on_subscription" },
          trial_settings: { end_behavior: { missing_payment_method: "cancel" } },
          metadata: input.metadata,
          expand: ["pending_setup_intent"],
        },
        { idempotencyKey },
      ),
    );
    const setup = subscription.pending_setup_intent;
    return { subscriptionId: subscription.id, clientSecret: setup && typeof setup !== "string" ? setup.client_secret : null };
  }

  async createTrialCheckout(input: {
    customerId: string;
    priceId: string;
    trialDays: number;
    metadata: Record<string, string>;
    successUrl: string;
    cancelUrl: string;
  }) {
    return this.hostedPage({
      mode: "subscription",
      customer: input.customerId,
      line_items: [{ price: input.priceId, quantity: 1 }],
      payment_method_collection: "always",
      subscription_data: { trial_period_days: input.trialDays, metadata: input.metadata },
      metadata: input.metadata,
      success_url: input.successUrl,
      cancel_url: input.cancelUrl,
    });
  }

  async createCardCheckout(input: {
    customerId: string;
    currency: string;
    metadata: Record<string, string>;
    successUrl: string;
    cancelUrl: string;
  }) {
    return this.hostedPage({
      mode: "setup",
      customer: input.customerId,
      currency: input.currency,
      setup_intent_data: { metadata: input.metadata },
      metadata: input.metadata,
      success_url: input.successUrl,
      cancel_url: input.cancelUrl,
    });
  }

  /** A Checkout Session (`{CHECKOUT_ID}` in the success URL becomes its id) and its page's address. */
  private async hostedPage(params: Stripe.Checkout.SessionCreateParams) {
    const session = await stripeRequest(() =>
      this.stripe.checkout.sessions.create({
        ...params,
        success_url: params.success_url?.replace("{CHECKOUT_ID}", "{CHECKOUT_SESSION_ID}"),
      }),
    );
    if (!session.url) throw new PaymentsError("Stripe returned a Checkout Session without a URL", true);
    return { id: session.id, url: session.url };
  }

  async findSubscription(id: string) {
    try {
      return toSubscriptionState(await this.stripe.subscriptions.retrieve(id));
    } catch (error) {
      if (isMissing(error)) return null;
      throw toPaymentsError(error);
    }
  }

  async endTrialNow(subscriptionId: string) {
    return toSubscriptionState(await stripeRequest(() => this.stripe.subscriptions.update(subscriptionId, { trial_end: "now" })));
  }

  async setCancelAtPeriodEnd(subscriptionId: string, cancel: boolean) {
    return toSubscriptionState(
      await stripeRequest(() => this.stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: cancel })),
    );
  }

  async cancelNow(subscriptionId: string) {
    try {
      await this.stripe.subscriptions.cancel(subscriptionId);
    } catch (error) {
      // Already cancelled, or never made it: nothing left to stop.
      if (isMissing(error)) return;
      throw toPaymentsError(error);
    }
  }

  async deleteCustomer(customerId: string) {
    try {
      await this.stripe.customers.del(customerId);
    } catch (error) {
      // Deleted before (a retried deletion): nothing of theirs is left there.
      if (isMissing(error)) return;
      throw toPaymentsError(error);
    }
  }

  async useCardFromSetup(subscriptionId: string, setupIntentId: string) {
    return stripeRequest(async () => {
      const setup = await this.stripe.setupIntents.retrieve(setupIntentId);
      const paymentMethod = typeof setup.payment_method === "string" ? setup.payment_method : setup.payment_method?.id;
      if (setup.status !== "succeeded" || !paymentMethod) throw new PaymentsError("The card was not saved.", false);
      let subscription = await this.stripe.subscriptions.update(subscriptionId, { default_payment_method: paymentMethod });
      const invoiceId = typeof subscription.latest_invoice === "string" ? subscription.latest_invoice : subscription.latest_invoice?.id;
      if (subscription.status === "past_due" && invoiceId) {
        const invoice = await this.stripe.invoices.retrieve(invoiceId);
        if (invoice.status === "open") {
          try {
            await this.stripe.invoices.pay(invoiceId, { payment_method: paymentMethod });
          } catch (error) {
            // A declined card leaves the invoice open (past_due stays); the webhook and the return
            // page may both get here, and the second finds the invoice paid already.
            const alreadyPaid = error instanceof Stripe.errors.StripeInvalidRequestError && /already paid/i.test(error.message);
            if (!(error instanceof Stripe.errors.StripeCardError) && !alreadyPaid) throw error;
          }
          subscription = await this.stripe.subscriptions.retrieve(subscriptionId);
        }
      }
      return toSubscriptionState(subscription);
    });
  }

  async reportUsage(input: { meterEventName: string; customerId: string; identifier: string; value: number; at?: Date }) {
    // Stripe takes a timestamp up to 35 days old; an older report (a job stuck that long) is dated now.
    const at = input.at && input.at.getTime() > Date.now() - 34 * 86_400_000 ? input.at : new Date();
    try {
      await this.stripe.billing.meterEvents.create({
        event_name: input.meterEventName,
        identifier: input.identifier,
        timestamp: Math.floor(at.getTime() / 1000),
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
          metadata: event.data.object.metadata ?? {},
        };
      case "invoice.paid":
      case "invoice.payment_failed":
        return {
          id: event.id,
          kind: event.type === "invoice.paid" ? "invoice_paid" : "invoice_failed",
          invoice: toInvoiceFacts(event.data.object),
        };
      case "setup_intent.succeeded": {
        const setup = event.data.object;
        return {
          id: event.id,
          kind: "setup_succeeded",
          setupIntentId: setup.id,
          customerId: typeof setup.customer === "string" ? setup.customer : (setup.customer?.id ?? null),
          metadata: setup.metadata ?? {},
        };
      }
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

const idOf = (value: string | { id: string } | null | undefined) => (typeof value === "string" ? value : (value?.id ?? null));

function toCheckout(session: Stripe.Checkout.Session): Checkout {
  return {
    id: session.id,
    mode: session.mode as Checkout["mode"],
    status: session.status,
    paymentId: idOf(session.payment_intent),
    subscriptionId: idOf(session.subscription),
    setupIntentId: idOf(session.setup_intent),
    customerId: idOf(session.customer),
    metadata: session.metadata ?? {},
  };
}

function toSubscriptionState(subscription: Stripe.Subscription): SubscriptionState {
  // Since API version 2025-03-31 the period lives on each item; a subscription has one here.
  const items = subscription.items.data;
  const seconds = (s: number) => new Date(s * 1000);
  return {
    id: subscription.id,
    customerId: idOf(subscription.customer)!,
    status: subscription.status,
    trialEnd: subscription.trial_end ? seconds(subscription.trial_end) : null,
    periodStart: seconds(Math.min(...items.map((i) => i.current_period_start))),
    periodEnd: seconds(Math.min(...items.map((i) => i.current_period_end))),
    cancelAtPeriodEnd: subscription.cancel_at_period_end,
    hasCard: Boolean(subscription.default_payment_method),
    metadata: subscription.metadata ?? {},
  };
}

function toInvoiceFacts(invoice: Stripe.Invoice): InvoiceFacts {
  return {
    id: invoice.id ?? "",
    subscriptionId: idOf(invoice.parent?.subscription_details?.subscription),
    customerId: idOf(invoice.customer),
    amountCents: invoice.amount_paid || invoice.amount_due,
    currency: invoice.currency,
    url: invoice.hosted_invoice_url ?? null,
    billingReason: invoice.billing_reason ?? null,
  };
}

function isMissing(error: unknown) {
  return (error as { code?: string }).code === "resource_missing";
}
