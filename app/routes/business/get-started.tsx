import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import type { Route } from "./+types/get-started";
import { starterCheckoutUrl } from "~/features/business/signup/onboarding.server";
import { serverRegistrationSchema } from "~/features/business/schemas.server";
import { emailRegistrationLink, registerWithVerification, resendRegistrationLink } from "~/features/business/signup/registration.server";
import { servicesContext } from "~/platform/context";
import { getT, getLocale } from "~/platform/i18n.server";
import { clientIp, firstExceededRule } from "~/platform/security/rate-limit.server";
import {
  forgetRegistration,
  registrationAddress,
  registrationBusiness,
  rememberAddressOnly,
  rememberRegistration,
} from "~/features/business/signup/registration-cookie.server";
import { redirectWithToast } from "~/platform/http/toast.server";
import { GetStartedPage } from "~/features/business/signup/get-started-page";

export async function loader({ request, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const business = await registrationBusiness(services, request);
  const base = { title: `${t("register.title")} · Sakina`, paymentsConfigured: Boolean(services.payments) };
  if (!business) {
    // An address already registered: the same "check your inbox" a new registration sees.
    const email = await registrationAddress(services, request);
    return email ? { ...base, step: "verify" as const, email, business: null } : { ...base, step: "register" as const, business: null };
  }
  const shown = { id: business.id, name: business.name, email: business.email };
  if (business.status === "active") return { ...base, step: "active" as const, business: shown };
  if (business.status === "pending_verification") return { ...base, step: "verify" as const, email: business.email, business: null };
  return { ...base, step: "payment" as const, business: shown };
}

export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const formData = await request.formData();
  const intent = formData.get("intent");
  const origin = services.publicOrigin();

  if (intent === "restart") {
    return redirect("/get-started", { headers: { "Set-Cookie": await forgetRegistration(services) } });
  }

  if (intent === "resend" || intent === "checkout") {
    const business = await registrationBusiness(services, request);
    const address = business ? null : await registrationAddress(services, request);
    if (intent === "resend") {
      const email = business?.status === "pending_verification" ? business.email : address;
      if (!email) return redirect("/get-started");
      const exceeded = business
        ? await emailRegistrationLink(context, t, getLocale(context), business, origin)
        : await resendRegistrationLink(context, t, getLocale(context), email, origin);
      return redirectWithToast(
        services,
        "/get-started",
        exceeded
          ? {
              type: "error",
              title: t("common.errorTitle"),
              description: t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }),
            }
          : { type: "success", title: t("register.resentTitle"), description: t("register.resentBody", { email }) },
      );
    }
    if (!business) return redirect("/get-started");
    if (business.status !== "payment_required") return redirect("/get-started");
    if (!services.payments) {
      return redirectWithToast(services, "/get-started", {
        type: "error",
        title: t("payment.failedTitle"),
        description: t("payment.notConfigured"),
      });
    }
    return redirect(await starterCheckoutUrl(services, business, origin), 303);
  }

  const submission = parseWithZod(formData, { schema: serverRegistrationSchema(t) });
  if (submission.status !== "success") return data({ reply: submission.reply(), emailExists: false }, { status: 400 });
  const exceeded = await firstExceededRule(context, [{ name: "register:ip", subject: clientIp(context), limit: 10, windowSeconds: 3600 }]);
  if (exceeded) {
    return data(
      {
        reply: submission.reply({ formErrors: [t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes })] }),
        emailExists: false,
      },
      { status: 429 },
    );
  }
  const result = await registerWithVerification(context, t, getLocale(context), submission.value, origin);
  if (result.kind === "login") {
    // The owner of an active business logs in (or resets the password); what was typed stays in the form.
    return data({ reply: submission.reply({ fieldErrors: { email: [t("flows.emailExists")] } }), emailExists: true }, { status: 409 });
  }
  // A new address and one of an unfinished signup lead to the same "check your inbox" page.
  const remember =
    result.kind === "registered"
      ? await rememberRegistration(services, result.business)
      : await rememberAddressOnly(services, result.email);
  return redirect("/get-started", { headers: { "Set-Cookie": remember } });
}

export default function GetStarted({ loaderData, actionData }: Route.ComponentProps) {
  return <GetStartedPage loaderData={loaderData} actionData={actionData} />;
}
