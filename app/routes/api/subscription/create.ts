import type { Route } from "./+types/create";
import { commitSubscriberLogin, getSubscriberId } from "~/features/auth/auth.server";
import { checkSignup, sendResumeLink } from "~/features/subscriptions/access.server";
import { beginSignup, startTrialInPage } from "~/features/subscriptions/signup.server";
import { apiError, methodNotAllowed, readJsonBody } from "~/platform/http/api.server";
import { servicesContext } from "~/platform/context";
import { getT, getLocale } from "~/platform/i18n.server";
import { clientIp, firstExceededRule, phoneLimitSubject } from "~/platform/security/rate-limit.server";
import { PaymentsError } from "~/providers/payments.server";

/**
 * POST /api/subscription/create { phone, email, fullName, callFrequency } → { clientSecret, userId }:
 * the subscriber, a Stripe customer and a subscription trialing for 7 days that waits for the
 * card (the client secret is the SetupIntent's, for the Payment Element). Signs the browser in as
 * a new subscriber or as its own unfinished signup; an unfinished signup with the same e-mail that
 * another browser started gets 409 `action: "check_email"` and a link sent to the address (ADR 0018).
 */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const body = await readJsonBody(request);
  const ip = clientIp(context);
  const checked = await checkSignup(services, t, body, { language: getLocale(context), ip });
  if (!checked.ok) {
    const title = checked.message === t("subscribe.incompleteBody") ? t("subscribe.incompleteTitle") : undefined;
    return apiError(400, checked.message, { fields: checked.fields, ...(title ? { title } : {}) });
  }
  if (!services.payments) return apiError(503, t("payment.notConfigured"));
  const exceeded = await firstExceededRule(context, [
    { name: "subscribe:ip", subject: ip ?? "unknown", limit: 20, windowSeconds: 3600 },
    { name: "subscribe:phone", subject: phoneLimitSubject(checked.value.phone), limit: 10, windowSeconds: 86_400 },
  ]);
  if (exceeded) return apiError(429, t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }));
  const begun = await beginSignup(services, checked.value, await getSubscriberId(services, request));
  if (!begun.ok && begun.reason === "check_email") {
    const wait = await sendResumeLink(context, t, begun.email, getLocale(context));
    if (wait !== null) return apiError(429, t("common.tooManyRequests", { minutes: wait }));
    return apiError(409, t("subscribe.checkEmail.body", { email: begun.email }), {
      action: "check_email",
      title: t("subscribe.checkEmail.title"),
    });
  }
  if (!begun.ok) {
    const message = begun.reason === "trial_used" ? t("subscribe.trialUsed") : t("subscribe.exists");
    return apiError(409, message, { action: "sign_in" });
  }
  try {
    const { clientSecret } = await startTrialInPage(services, begun.subscriber);
    const cookie = await commitSubscriberLogin(services, begun.subscriber.id, request);
    return Response.json({ clientSecret, userId: begun.subscriber.id }, { headers: { "Set-Cookie": cookie } });
  } catch (error) {
    if (error instanceof PaymentsError) return apiError(502, t("subscribe.initFailed"));
    throw error;
  }
}

export const loader = methodNotAllowed;
