import { data, redirect } from "react-router";
import type { Route } from "./+types/subscribe";
import { findSubscriber } from "#models/subscribers";
import { commitSubscriberLogin, getSubscriberId } from "~/features/auth/auth.server";
import { checkSignup, sendResumeLink } from "~/features/subscriptions/access.server";
import type { CallFrequency } from "~/features/subscriptions/plans";
import { beginSignup, startTrialCheckout } from "~/features/subscriptions/signup.server";
import { servicesContext } from "~/platform/context";
import { getT, getLocale } from "~/platform/i18n.server";
import { clientIp } from "~/platform/security/rate-limit.server";
import { PaymentsError } from "~/providers/payments.server";
import { SubscribePage } from "~/features/subscriptions/subscribe-page";

/**
 * /subscribe: the spec's three steps. Details (checked on the server, any browser), then the card
 * (Stripe's Payment Element with JavaScript, Stripe Checkout without), then success on
 * /subscribe/complete. The details step signs the browser in as the new subscriber, or resumes
 * this browser's unfinished signup; another browser's unfinished signup with the same e-mail is
 * resumed only by the link this sends to the address (ADR 0018).
 */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const base = {
    title: `${t("subscribe.title")} · Sakina`,
    paymentsConfigured: Boolean(services.payments),
    callsConfigured: services.telephony.configured,
  };
  if (url.searchParams.get("step") !== "payment") return { ...base, step: "form" as const, pending: null };
  const id = await getSubscriberId(services, request);
  const subscriber = id ? await findSubscriber(services.db, id) : null;
  if (!subscriber) throw redirect("/subscribe");
  if (subscriber.status !== "incomplete") throw redirect(`/dashboard?userId=${subscriber.id}`);
  return {
    ...base,
    step: "payment" as const,
    pending: {
      fullName: subscriber.fullName,
      email: subscriber.email,
      phone: subscriber.phone,
      callFrequency: subscriber.callFrequency as CallFrequency,
    },
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const form = Object.fromEntries(await request.formData());
  if (form.intent === "checkout") {
    const id = await getSubscriberId(services, request);
    const subscriber = id ? await findSubscriber(services.db, id) : null;
    if (!subscriber || subscriber.status !== "incomplete") throw redirect("/subscribe");
    if (!services.payments) return data({ formError: t("payment.notConfigured"), fields: {}, values: {} }, { status: 503 });
    try {
      const checkout = await startTrialCheckout(services, subscriber);
      return redirect(checkout.url);
    } catch (error) {
      if (error instanceof PaymentsError) return data({ formError: t("subscribe.initFailed"), fields: {}, values: {} }, { status: 502 });
      throw error;
    }
  }
  const values = {
    fullName: String(form.fullName ?? "").slice(0, 200),
    email: String(form.email ?? "").slice(0, 300),
    phone: String(form.phone ?? "").slice(0, 60),
    callFrequency: String(form.callFrequency ?? ""),
  };
  const checked = await checkSignup(services, t, values, { language: getLocale(context), ip: clientIp(context) });
  if (!checked.ok) {
    // The summary names each field that needs attention; no general line repeats it.
    return data({ formError: null, fields: checked.fields, values }, { status: 400 });
  }
  const begun = await beginSignup(services, checked.value, await getSubscriberId(services, request));
  if (!begun.ok && begun.reason === "check_email") {
    const wait = await sendResumeLink(context, t, begun.email, getLocale(context));
    if (wait !== null) {
      return data({ formError: t("common.tooManyRequests", { minutes: wait }), fields: {}, values }, { status: 429 });
    }
    return { checkEmail: begun.email, formError: null, fields: {}, values };
  }
  if (!begun.ok) {
    const message = begun.reason === "trial_used" ? t("subscribe.trialUsed") : t("subscribe.exists");
    return data({ formError: null, fields: { email: [message] }, values, signIn: true }, { status: 409 });
  }
  const cookie = await commitSubscriberLogin(services, begun.subscriber.id, request);
  return redirect("/subscribe?step=payment", { headers: { "Set-Cookie": cookie } });
}

export default function Subscribe({ loaderData, actionData }: Route.ComponentProps) {
  return <SubscribePage loaderData={loaderData} actionData={actionData} />;
}
