import type Stripe from "stripe";
import type { Env } from "~/platform/env.server";
import {
  PaymentsError,
  PaymentsNotConfiguredError,
  createStripeClient,
  idOf,
  isMissing,
  stripeRequest,
  toPaymentsError,
} from "./stripe.server";

export { PaymentsError, PaymentsNotConfiguredError } from "./stripe.server";

/**
 * Payments as the product needs them: take a one-off payment (in the page or on a hosted checkout
 * page), check it, refund it, and read the provider's signed events. Plans, cards kept for them
 * and usage are billing (billing.server.ts). Features speak only this interface; Stripe, through
 * its official SDK, is the implementation.
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

/** Null without STRIPE_SECRET_KEY: pages then say payments are not configured. */
export function createPayments(env: Env): Payments | null {
  if (!env.STRIPE_SECRET_KEY) return null;
  return new StripePayments(createStripeClient(env.STRIPE_SECRET_KEY, env.STRIPE_API_URL), env.STRIPE_WEBHOOK_SECRET);
}

export function requirePayments(payments: Payments | null): Payments {
  if (!payments) throw new PaymentsNotConfiguredError();
  return payments;
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

/**
 * An invoice as a webhook carries it: in the webhook endpoint's API version, which may be older
 * than the SDK's. Since 2025-03-31 (basil) the subscription is under `parent`; before, it was the
 * invoice's own `subscription` (and each subscription line's). Every shape gives the same facts.
 */
function toInvoiceFacts(invoice: Stripe.Invoice): InvoiceFacts {
  return {
    id: invoice.id ?? "",
    subscriptionId: subscriptionOfInvoice(invoice),
    customerId: idOf(invoice.customer),
    amountCents: invoice.amount_paid || invoice.amount_due,
    currency: invoice.currency,
    url: invoice.hosted_invoice_url ?? null,
    billingReason: invoice.billing_reason ?? null,
  };
}

/** What an invoice of an API version before basil (2025-03-31) had, and basil's lines. */
type AnyVersionInvoice = Stripe.Invoice & {
  subscription?: string | { id: string } | null;
  lines?: {
    data?: {
      subscription?: string | { id: string } | null;
      parent?: { subscription_item_details?: { subscription?: string | null } | null } | null;
    }[];
  };
};

function subscriptionOfInvoice(invoice: AnyVersionInvoice): string | null {
  const current = idOf(invoice.parent?.subscription_details?.subscription);
  if (current) return current;
  const older = idOf(invoice.subscription);
  if (older) return older;
  for (const line of invoice.lines?.data ?? []) {
    const id = idOf(line.parent?.subscription_item_details?.subscription) ?? idOf(line.subscription);
    if (id) return id;
  }
  return null;
}
