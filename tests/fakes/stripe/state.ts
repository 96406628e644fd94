// The state one fake Stripe server shares between its resources: the objects by id, the links
// between them that are not fields, events, webhook endpoints and deliveries, requests, keys and
// counters. startFakeStripe creates it; the resource modules take it as their first argument.
import Stripe from "stripe";
import { noSuch } from "./validation";
import type { FakeStripe, FakeStripeDelivery, FakeStripeErrorBody, FakeStripeRequest, Obj } from "./types";

export const FAKE_STRIPE_API_VERSION = "2026-10-28.endive";

export interface FakeStripeState {
  secretKey: string;
  publishableKey: string;
  signer: Stripe;

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
  meterEvents: Map<string, Obj>;
  meterEventErrors: FakeStripe["meterEventErrors"];
  subscriptions: Map<string, Obj>;
  invoices: Map<string, Obj>;
  events: Obj[];
  requests: FakeStripeRequest[];
  deliveries: FakeStripeDelivery[];
  /** `apiVersion`: the endpoint's API version, in which its events are rendered (the account's, by default). */
  webhooks: { url: string; secret: string; apiVersion?: string }[];
  failures: { method: string; pathPrefix: string; status: number; error: FakeStripeErrorBody; remaining: number }[];
  idempotent: Map<string, { fingerprint: string; status: number; body: string; requestId: string }>;

  // Internal links that are not fields of the objects.
  cardNumberOf: Map<string, string>; // pm id → card number
  usedPaymentMethods: Set<string>;
  invoiceOfIntent: Map<string, string>; // pi id → invoice id
  confirmationSecretOf: Map<string, Obj>; // invoice id → { client_secret, type }
  lineItemsOf: Map<string, Obj[]>; // checkout session id → line items
  intentOfSession: Map<string, string>;
  subscriptionOfSetupIntent: Map<string, string>; // seti id → sub id (pending_setup_intent)
  /** A subscription whose billing change sends one customer.subscription.updated for all its effects. */
  quietSubscription: string | null;
  meterEventTimes: Map<string, number>;
  /** Meter events already on an invoice (or in a trial, which bills no usage), by identifier. */
  billedMeterEvents: Set<string>;
  seq: number;
  closed: boolean;
  deliveryChain: Promise<void>;
  inflight: Set<AbortController>;

  /** `http://127.0.0.1:PORT`, set once the server listens. */
  origin: string;
}

export function createState(options: { secretKey?: string; publishableKey?: string }): FakeStripeState {
  return {
    secretKey: options.secretKey ?? "sk_test_fake",
    publishableKey: options.publishableKey ?? "pk_test_fake",
    signer: new Stripe("sk_test_x"),

    customers: new Map<string, Obj>(),
    paymentIntents: new Map<string, Obj>(),
    paymentMethods: new Map<string, Obj>(),
    charges: new Map<string, Obj>(),
    refunds: new Map<string, Obj>(),
    checkoutSessions: new Map<string, Obj>(),
    setupIntents: new Map<string, Obj>(),
    products: new Map<string, Obj>(),
    prices: new Map<string, Obj>(),
    meters: new Map<string, Obj>(),
    meterEvents: new Map<string, Obj>(),
    meterEventErrors: [],
    subscriptions: new Map<string, Obj>(),
    invoices: new Map<string, Obj>(),
    events: [],
    requests: [],
    deliveries: [],
    webhooks: [],
    failures: [],
    idempotent: new Map(),

    cardNumberOf: new Map<string, string>(),
    usedPaymentMethods: new Set<string>(),
    invoiceOfIntent: new Map<string, string>(),
    confirmationSecretOf: new Map<string, Obj>(),
    lineItemsOf: new Map<string, Obj[]>(),
    intentOfSession: new Map<string, string>(),
    subscriptionOfSetupIntent: new Map<string, string>(),
    quietSubscription: null,
    meterEventTimes: new Map<string, number>(),
    billedMeterEvents: new Set<string>(),
    seq: 0,
    closed: false,
    deliveryChain: Promise.resolve(),
    inflight: new Set<AbortController>(),

    origin: "",
  };
}

export function store<T extends Obj>(state: FakeStripeState, map: Map<string, Obj>, object: T): T {
  Object.defineProperty(object, "_seq", { value: ++state.seq, enumerable: false, writable: true });
  map.set(object.id, object);
  return object;
}

export function getOr404(map: Map<string, Obj>, kind: string, id: string) {
  const found = map.get(id);
  if (!found) throw noSuch(kind, id);
  return found;
}
