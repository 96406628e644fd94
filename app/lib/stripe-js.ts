/** The part of Stripe.js the payment forms use, loaded from STRIPE_JS_URL on demand. */
export interface StripeJs {
  elements(
    options:
      | { clientSecret: string; locale?: string; appearance?: object }
      | { mode: "payment"; amount: number; currency: string; locale?: string; appearance?: object },
  ): StripeElements;
  confirmPayment(options: {
    elements: StripeElements;
    clientSecret?: string;
    redirect: "if_required";
    confirmParams?: { return_url?: string };
  }): Promise<{ paymentIntent?: { id: string; status: string }; error?: { type: string; code?: string; message?: string } }>;
  confirmSetup(options: {
    elements: StripeElements;
    clientSecret?: string;
    redirect: "if_required";
    confirmParams?: { return_url?: string };
  }): Promise<{ setupIntent?: { id: string; status: string }; error?: { type: string; code?: string; message?: string } }>;
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
