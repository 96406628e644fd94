import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import type { Route } from "./+types/get-started";
import { sendVerificationEmail, starterCheckoutUrl } from "~/features/business/signup/onboarding.server";
import { serverRegistrationSchema } from "~/features/business/schemas.server";
import { registerWithVerification } from "~/features/business/signup/registration.server";
import { servicesContext } from "~/platform/context";
import { getI18n, getLocale } from "~/platform/i18n.server";
import { clientIp, firstExceededRule } from "~/platform/security/rate-limit.server";
import { forgetRegistration, registrationBusiness, rememberRegistration } from "~/features/business/signup/registration-cookie.server";
import { redirectWithToast, toastHeader } from "~/platform/http/toast.server";
import { GetStartedPage } from "~/features/business/signup/get-started-page";

export async function loader({ request, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const { t } = getI18n(context);
  const business = await registrationBusiness(services, request);
  const base = { title: `${t("register.title")} · Sakina`, paymentsConfigured: Boolean(services.payments) };
  if (!business) return { ...base, step: "register" as const, business: null };
  if (business.status === "active") {
    return { ...base, step: "active" as const, business: { id: business.id, name: business.name, email: business.email } };
  }
  return {
    ...base,
    step: business.status === "pending_verification" ? ("verify" as const) : ("payment" as const),
    business: { id: business.id, name: business.name, email: business.email },
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const { t } = getI18n(context);
  const formData = await request.formData();
  const intent = formData.get("intent");
  const origin = services.publicOrigin();

  if (intent === "restart") {
    return redirect("/get-started", { headers: { "Set-Cookie": await forgetRegistration(services) } });
  }

  if (intent === "resend" || intent === "checkout") {
    const business = await registrationBusiness(services, request);
    if (!business) return redirect("/get-started");
    if (intent === "resend") {
      const exceeded = await firstExceededRule(context, [
        { name: "verify-resend:business", subject: String(business.id), limit: 3, windowSeconds: 3600 },
      ]);
      if (!exceeded && business.status === "pending_verification") {
        await sendVerificationEmail(services, t, getLocale(context), business, origin);
      }
      return redirectWithToast(
        services,
        "/get-started",
        exceeded
          ? {
              type: "error",
              title: t("common.errorTitle"),
              description: t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }),
            }
          : { type: "success", title: t("register.resentTitle"), description: t("register.resentBody", { email: business.email }) },
      );
    }
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
  const result = await registerWithVerification(services, t, getLocale(context), submission.value, origin);
  if (result.kind === "login") {
    // The owner of an active business logs in (or resets the password); what was typed stays in the form.
    return data({ reply: submission.reply({ fieldErrors: { email: [t("flows.emailExists")] } }), emailExists: true }, { status: 409 });
  }
  const remember = await rememberRegistration(services, result.business.id);
  switch (result.kind) {
    case "continue_payment":
    case "verification_resent": {
      const headers = new Headers({ "Set-Cookie": remember });
      headers.append(
        "Set-Cookie",
        await toastHeader(services, {
          type: "info",
          title: t("register.continueTitle"),
          description:
            result.kind === "continue_payment" ? t("register.continueBody") : t("register.resentBody", { email: result.business.email }),
        }),
      );
      return redirect("/get-started", { headers });
    }
    case "registered":
      return redirect("/get-started", { headers: { "Set-Cookie": remember } });
  }
}

export default function GetStarted({ loaderData, actionData }: Route.ComponentProps) {
  return <GetStartedPage loaderData={loaderData} actionData={actionData} />;
}
