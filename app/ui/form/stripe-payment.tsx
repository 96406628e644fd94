import { useEffect, useRef, useState, type ReactNode } from "react";

import { useTranslation } from "~/ui/translation";
import { useRootData } from "~/ui/shell/root-data";
import { useHydrated } from "~/ui/use-hydrated";
import {
  forgetReturn,
  loadStripe,
  returnUrl,
  returnedIntent,
  type StripeElements,
  type StripeIntent,
  type StripeJs,
} from "~/lib/stripe-js";
import { Button } from "~/ui/form/button";

type Status = "loading" | "ready" | "paying" | "failed" | "unavailable";

/**
 * Stripe's Payment Element, for browsers with JavaScript. Until it is ready (or when Stripe.js
 * cannot load) the server-rendered fallback, a Stripe Checkout form, stays on the page.
 *
 * Every confirmation names this page as `return_url`: Stripe refuses to confirm without one
 * (the intents allow redirect-based methods), and a method that takes the customer to their
 * bank's page sends them back here with the intent's client secret. The component then reads
 * that intent from Stripe and ends as an in-page confirmation would (`settle`): paid, still
 * processing, or failed with the form to try again.
 */
export function StripePayment({
  createIntent,
  onPaid,
  payLabel,
  fallback,
  showExpressCheckout = false,
  deferred,
  setup = false,
}: {
  /** Called once at mount, or (deferred) when the customer pays, before confirming. */
  createIntent: () => Promise<{ clientSecret: string }>;
  onPaid: (paymentIntentId: string) => Promise<void> | void;
  payLabel: ReactNode;
  /** The no-JavaScript path, shown when Stripe.js is unavailable. */
  fallback: ReactNode;
  showExpressCheckout?: boolean;
  /**
   * Stripe's deferred-intent flow: the Elements (and the wallet sheet) show this amount from the
   * start, and the PaymentIntent is created only when the customer pays.
   */
  deferred?: { amount: number; currency: string };
  /** The intent is a SetupIntent: the card is saved for later charges (a trial), nothing is paid now. */
  setup?: boolean;
}) {
  const { t, i18n } = useTranslation();
  const rootData = useRootData();
  const env = rootData?.publicEnv;
  const mountRef = useRef<HTMLDivElement>(null);
  const expressRef = useRef<HTMLDivElement>(null);
  const stripeRef = useRef<{ stripe: StripeJs; elements: StripeElements } | null>(null);
  // The server (and a browser without JavaScript) renders the fallback; the effect swaps in Stripe.
  // Until the effect reports, a browser with a publishable key shows "loading".
  const hydrated = useHydrated();
  const [reported, setStatus] = useState<Status | null>(null);
  const status: Status = reported ?? (hydrated && env?.STRIPE_PUBLISHABLE_KEY ? "loading" : "unavailable");
  // Read once per mount (the address is cleaned right after), before the effect runs.
  const [returned] = useState(() => (typeof window === "undefined" ? null : returnedIntent(setup ? "setup" : "payment")));
  const [error, setErrorState] = useState<{ title: string; message: string } | null>(null);
  const setError = (message: string | null, title = t("payment.failedTitle")) =>
    setErrorState(message === null ? null : { title, message });

  useEffect(() => {
    if (!env?.STRIPE_PUBLISHABLE_KEY) return;
    let cancelled = false;
    forgetReturn();
    (async () => {
      try {
        const stripePromise = loadStripe(env.STRIPE_JS_URL, env.STRIPE_PUBLISHABLE_KEY!);
        if (returned) {
          const stripe = await stripePromise;
          if (cancelled || (await resume(stripe, returned.clientSecret))) return;
        }
        const [stripe, intent] = await Promise.all([stripePromise, deferred ? null : createIntent()]);
        if (cancelled || !mountRef.current) return;
        const elements = intent
          ? stripe.elements({ clientSecret: intent.clientSecret, locale: i18n.language })
          : stripe.elements({ mode: "payment", amount: deferred!.amount, currency: deferred!.currency, locale: i18n.language });
        elements.create("payment").mount(mountRef.current);
        if (showExpressCheckout && expressRef.current) {
          const express = elements.create("expressCheckout");
          express.on("confirm", () => void pay());
          express.mount(expressRef.current);
        }
        stripeRef.current = { stripe, elements };
        setStatus("ready");
      } catch (cause) {
        if (cancelled) return;
        setError((cause as Error).message || t("payment.setupFailed"));
        setStatus("failed");
      }
    })();
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the intent is created once per mount; a new one would be a new charge attempt
  }, []);

  async function pay() {
    const current = stripeRef.current;
    if (!current) return;
    setStatus("paying");
    setError(null);
    const submitted = await current.elements.submit();
    if (submitted.error) {
      setError(submitted.error.message ?? t("payment.failedBody"));
      setStatus("ready");
      return;
    }
    let clientSecret: string | undefined;
    if (deferred) {
      try {
        clientSecret = (await createIntent()).clientSecret;
      } catch (cause) {
        setError((cause as Error).message || t("payment.setupFailed"));
        setStatus("ready");
        return;
      }
    }
    const confirm = {
      elements: current.elements,
      ...(clientSecret ? { clientSecret } : {}),
      redirect: "if_required" as const,
      confirmParams: { return_url: returnUrl() },
    };
    const result = setup ? await current.stripe.confirmSetup(confirm) : await current.stripe.confirmPayment(confirm);
    if (result.error) {
      setError(result.error.message ?? t("payment.failedBody"));
      setStatus("ready");
      return;
    }
    await settle("setupIntent" in result ? result.setupIntent : "paymentIntent" in result ? result.paymentIntent : undefined);
  }

  /**
   * Back from a redirect: the intent as Stripe knows it now. True when it was paid and handed on
   * (the form is not needed); otherwise the form is set up again, with what went wrong above it.
   */
  async function resume(stripe: StripeJs, clientSecret: string) {
    setStatus("paying");
    const result = setup ? await stripe.retrieveSetupIntent(clientSecret) : await stripe.retrievePaymentIntent(clientSecret);
    const intent = "setupIntent" in result ? result.setupIntent : "paymentIntent" in result ? result.paymentIntent : undefined;
    if (result.error || !intent) {
      setError(result.error?.message ?? t("payment.failedBody"));
      return false;
    }
    if (intent.status === "requires_payment_method" || intent.status === "canceled") {
      setError(intent.last_payment_error?.message ?? intent.last_setup_error?.message ?? t("payment.failedBody"));
      return false;
    }
    return settle(intent);
  }

  /** A confirmed intent, in the page or back from a redirect: paid (handed on), or still processing. */
  async function settle(intent: StripeIntent | undefined) {
    if (intent?.status !== "succeeded") {
      setError(t("payment.processing", { status: intent?.status ?? "unknown" }), t("payment.processingTitle"));
      setStatus("ready");
      return false;
    }
    try {
      await onPaid(intent.id);
      return true;
    } catch (cause) {
      setError((cause as Error).message);
      setStatus("ready");
      return false;
    }
  }

  if (status === "unavailable" || status === "failed") {
    return (
      <div className="space-y-3">
        {error ? (
          <p role="alert" className="rounded-lg bg-rose-50 p-3 text-sm text-rose-800">
            {error.message}
          </p>
        ) : null}
        {fallback}
      </div>
    );
  }

  return (
    <form
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        void pay();
      }}
      aria-busy={status !== "ready"}
    >
      {showExpressCheckout ? <div ref={expressRef} /> : null}
      <div ref={mountRef} className="min-h-12 rounded-lg border border-slate-300 bg-white p-3" />
      {status === "loading" ? (
        <p role="status" className="text-sm text-slate-600">
          {t("payment.loading")}
        </p>
      ) : null}
      {error ? (
        <p role="alert" className="rounded-lg bg-rose-50 p-3 text-sm font-medium text-rose-800">
          <span className="font-semibold">{error.title}: </span>
          {error.message}
        </p>
      ) : null}
      <Button type="submit" disabled={status !== "ready"} className="w-full">
        {status === "paying" ? t("payment.paying") : payLabel}
      </Button>
    </form>
  );
}
