// The fake's types: the handle a test gets (FakeStripe), what it records, and the objects it
// keeps. Stripe objects are loosely typed on purpose: tests read them like JSON.

export type Obj = Record<string, any>;

export interface FakeStripeRequest {
  method: string;
  path: string;
  body: Record<string, unknown>;
  idempotencyKey?: string;
  auth: "secret" | "publishable" | "none" | "invalid";
}

export interface FakeStripeDelivery {
  eventId: string;
  type: string;
  url: string;
  status: number;
}

export interface FakeStripeErrorBody {
  type: string;
  message: string;
  code?: string;
}

export interface FakeStripe {
  url: string;
  secretKey: string;
  publishableKey: string;
  jsUrl: string;
  requests: FakeStripeRequest[];
  customers: Map<string, Obj>;
  paymentIntents: Map<string, Obj>;
  paymentMethods: Map<string, Obj>;
  charges: Map<string, Obj>;
  refunds: Map<string, Obj>;
  checkoutSessions: Map<string, Obj>;
  setupIntents: Map<string, Obj>;
  products: Map<string, Obj>;
  prices: Map<string, Obj>;
  meters: Map<string, Obj>;
  /** Keyed by the event's identifier. */
  meterEvents: Map<string, Obj>;
  meterEventErrors: { identifier: string; code: string; message: string }[];
  subscriptions: Map<string, Obj>;
  invoices: Map<string, Obj>;
  events: Obj[];
  lastEvent(type: string): Obj | undefined;
  setWebhook(url: string, secret: string, options?: { apiVersion?: string }): void;
  deliveries: FakeStripeDelivery[];
  resend(eventId: string): Promise<number>;
  flush(): Promise<void>;
  failNext(match: { method: string; pathPrefix: string }, status: number, error: FakeStripeErrorBody, times?: number): { stop(): void };
  seedPaymentIntent(
    fields: Partial<{ amount: number; currency: string; status: string; metadata: Record<string, string>; customer: string }>,
  ): Obj;
  /**
   * Ends the subscription's current period now, as a test clock reaching it would: a subscription
   * set to cancel then is canceled; otherwise the next period's invoice is created and charged.
   * Returns the subscription as it is afterwards.
   */
  advanceSubscription(subscriptionId: string): Obj;
  /** Sends customer.subscription.trial_will_end (Stripe sends it three days before trial_end); returns the event. */
  trialWillEnd(subscriptionId: string): Obj;
  close(): Promise<void>;
}
