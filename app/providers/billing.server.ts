import Stripe from "stripe";
import type { Env } from "~/platform/env.server";
import {
  PaymentsError,
  PaymentsNotConfiguredError,
  createStripeClient,
  hostedPage,
  idOf,
  isMissing,
  stripeRequest,
  toPaymentsError,
} from "./stripe.server";

/**
 * Billing as the product needs it: customers, plans (a monthly price, a metered part), trials,
 * the card a plan is paid with, cancellation, and usage. One-off payments are payments.server.ts.
 * Features speak only this interface; Stripe, through its official SDK, is the implementation.
 */
export interface Billing {
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

/** Null without STRIPE_SECRET_KEY: pages then say payments are not configured. */
export function createBilling(env: Env): Billing | null {
  if (!env.STRIPE_SECRET_KEY) return null;
  return new StripeBilling(createStripeClient(env.STRIPE_SECRET_KEY, env.STRIPE_API_URL));
}

export function requireBilling(billing: Billing | null): Billing {
  if (!billing) throw new PaymentsNotConfiguredError();
  return billing;
}

class StripeBilling implements Billing {
  constructor(private readonly stripe: Stripe) {}

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
      const meter =
        (await this.findMeter(usage.meterEventName)) ??
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

  /**
   * The active meter for an event name, on whichever page of the account's meters it is: Stripe
   * lists them newest first, a page at a time, and refuses a second active meter for the name.
   */
  private async findMeter(eventName: string) {
    for await (const meter of this.stripe.billing.meters.list({ status: "active", limit: 100 })) {
      if (meter.event_name === eventName) return meter;
    }
    return null;
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
    return hostedPage(this.stripe, {
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
    return hostedPage(this.stripe, {
      mode: "setup",
      customer: input.customerId,
      currency: input.currency,
      setup_intent_data: { metadata: input.metadata },
      metadata: input.metadata,
      success_url: input.successUrl,
      cancel_url: input.cancelUrl,
    });
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
