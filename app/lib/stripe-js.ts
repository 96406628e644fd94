/** The part of Stripe.js the payment forms use, loaded from STRIPE_JS_URL on demand. */
export interface StripeJs {
  elements(
    options:
      | { clientSecret: string; locale?: string; appearance?: object }
      | { mode: "payment"; amount: number; currency: string; locale?: string; appearance?: object },
  ): StripeElements;
  /**
   * `return_url` is required: Stripe refuses to confirm an intent that allows redirect-based
   * methods without one, and a redirected customer comes back there (see `returnedIntent`).
   */
  confirmPayment(options: {
    elements: StripeElements;
    clientSecret?: string;
    redirect: "if_required";
    confirmParams: { return_url: string };
  }): Promise<{ paymentIntent?: StripeIntent; error?: StripeJsError }>;
  confirmSetup(options: {
    elements: StripeElements;
    clientSecret?: string;
    redirect: "if_required";
    confirmParams: { return_url: string };
  }): Promise<{ setupIntent?: StripeIntent; error?: StripeJsError }>;
  retrievePaymentIntent(clientSecret: string): Promise<{ paymentIntent?: StripeIntent; error?: StripeJsError }>;
  retrieveSetupIntent(clientSecret: string): Promise<{ setupIntent?: StripeIntent; error?: StripeJsError }>;
}
/** What Stripe.js shows of a PaymentIntent or SetupIntent (the publishable key's view). */
export interface StripeIntent {
  id: string;
  status: string;
  last_payment_error?: { message?: string } | null;
  last_setup_error?: { message?: string } | null;
}
export interface StripeJsError {
  type: string;
  code?: string;
  message?: string;
}
export interface StripeElements {
  create(type: "payment" | "expressCheckout", options?: object): StripeElement;
  submit(): Promise<{ error?: { message?: string } }>;
}
export interface StripeElement {
  mount(target: HTMLElement | string): void;
  destroy(): void;
  on(event: string, handler: (event: unknown) => void): void;
}

declare global {
  interface Window {
    Stripe?: (publishableKey: string, options?: object) => StripeJs;
  }
}

let loading: Promise<void> | null = null;

export function loadStripe(scriptUrl: string, publishableKey: string): Promise<StripeJs> {
  if (!loading) {
    loading = new Promise<void>((resolve, reject) => {
      if (window.Stripe) return resolve();
      const script = document.createElement("script");
      script.src = scriptUrl;
      script.async = true;
      script.onload = () => resolve();
      script.onerror = () => {
        loading = null;
        reject(new Error("Stripe.js could not be loaded"));
      };
      document.head.appendChild(script);
    });
  }
  return loading.then(() => {
    if (!window.Stripe) throw new Error("Stripe.js did not define window.Stripe");
    return window.Stripe(publishableKey);
  });
}

/** The query parameters Stripe adds to `return_url` when it sends a redirected customer back. */
const RETURN_PARAMS = [
  "payment_intent",
  "payment_intent_client_secret",
  "setup_intent",
  "setup_intent_client_secret",
  "redirect_status",
] as const;

/**
 * Where a redirect-based payment method (a bank's page, a wallet's app) sends the customer back:
 * this page, as it is now, without what an earlier return added.
 */
export function returnUrl(location: Location = window.location): string {
  const url = new URL(location.href);
  for (const name of RETURN_PARAMS) url.searchParams.delete(name);
  url.hash = "";
  return url.toString();
}

/**
 * The intent a customer came back with from a redirect: Stripe adds its client secret to
 * `return_url`. Null when this visit is no return (or the parameter is no client secret).
 */
export function returnedIntent(kind: "payment" | "setup", location: Location = window.location): { clientSecret: string } | null {
  const clientSecret = new URL(location.href).searchParams.get(
    kind === "setup" ? "setup_intent_client_secret" : "payment_intent_client_secret",
  );
  // A client secret is `{intent id}_secret_{secret}`.
  const shape =
    kind === "setup" ? /^seti_[A-Za-z0-9]{1,100}_secret_[A-Za-z0-9]{1,200}$/ : /^pi_[A-Za-z0-9]{1,100}_secret_[A-Za-z0-9]{1,200}$/;
  return clientSecret && shape.test(clientSecret) ? { clientSecret } : null;
}

/** Takes the return's parameters out of the address, so a reload or a shared link carries no client secret. */
export function forgetReturn(location: Location = window.location) {
  const clean = returnUrl(location);
  if (clean !== location.href) window.history.replaceState(window.history.state, "", clean);
}

/** What the app's JSON APIs answer on failure: `{ error }` (spec section 7). */
export async function postJson<T>(url: string, body: unknown): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    credentials: "same-origin",
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: { error?: unknown; message?: unknown } | null = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!response.ok) {
    const detail = parsed?.error ?? parsed?.message ?? text ?? response.statusText;
    throw new Error(String(detail || response.statusText));
  }
  return parsed as T;
}
