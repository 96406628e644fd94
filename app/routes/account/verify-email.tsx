import { useEffect, useRef } from "react";
import { data, useNavigation, useSubmit } from "react-router";
import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/verify-email";
import { StarterOffer } from "~/features/business/signup/get-started-page";
import { PaymentsNotConfigured } from "~/ui/payments-not-configured";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Button, buttonClass } from "~/ui/form/button";
import { alreadyVerifiedBusiness, verifyBusinessEmail } from "~/features/business/signup/verification.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";
import { rememberRegistration } from "~/features/business/signup/registration-cookie.server";
import { toastHeader } from "~/platform/http/toast.server";
import { FocusHeading } from "~/ui/form/focus";

export function loader({ url, context }: Route.LoaderArgs) {
  const token = url.searchParams.get("token") ?? "";
  const email = url.searchParams.get("email") ?? "";
  const t = getT(context);
  const paymentsConfigured = Boolean(context.get(servicesContext).payments);
  return { token, email, linkComplete: Boolean(token && email), paymentsConfigured, title: `${t("verify.title")} · Sakina` };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

/**
 * The link is used by a POST, never by the GET that opened the page: mail scanners that fetch
 * links must not burn a single-use token. With JavaScript the page posts at once.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const form = await request.formData();
  const token = String(form.get("token") ?? "");
  const email = String(form.get("email") ?? "");
  const business = await verifyBusinessEmail(services, token, email);
  if (!business) {
    // The link worked before: the address is verified, and the owner goes on from where they are.
    const verified = await alreadyVerifiedBusiness(services, token, email);
    if (!verified) return data({ ok: false as const }, { status: 400 });
    const paymentDue = verified.status === "payment_required";
    return data(
      { ok: "already" as const, paymentDue },
      // Holding the e-mailed link proves the address as it did the first time: the unfinished signup resumes.
      paymentDue ? { headers: { "Set-Cookie": await rememberRegistration(services, verified) } } : undefined,
    );
  }
  const headers = new Headers({ "Set-Cookie": await rememberRegistration(services, business) });
  headers.append(
    "Set-Cookie",
    await toastHeader(services, { type: "success", title: t("verify.successToast"), description: t("verify.successToastBody") }),
  );
  return data(
    {
      ok: true as const,
      businessName: business.name,
      ownerName: business.ownerName,
      bookingUrl: `${services.publicOrigin()}/book/${business.bookingLink}`,
    },
    { headers },
  );
}

export default function VerifyEmail({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const submit = useSubmit();
  const formRef = useRef<HTMLFormElement>(null);
  const pending = navigation.state === "submitting";
  useEffect(() => {
    if (loaderData.linkComplete && !actionData && formRef.current) submit(formRef.current);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- submitted once, on arrival, not again when the form data changes
  }, []);

  const failed = !loaderData.linkComplete || actionData?.ok === false;
  return (
    <div className="mx-auto max-w-xl px-4 py-12 sm:py-16">
      <div className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8">
        {failed ? (
          <div className="space-y-4">
            <FocusHeading level={1} className="text-2xl font-semibold text-slate-900">
              {t("verify.errorTitle")}
            </FocusHeading>
            <p role="alert" className="text-slate-700">
              {loaderData.linkComplete ? t("verify.errorBody") : t("verify.incompleteBody")}
            </p>
            <div className="flex flex-wrap gap-3">
              <Link to="/get-started" className={buttonClass()}>
                {t("verify.registerAgain")}
              </Link>
              <Link to="/login" className={buttonClass("secondary")}>
                {t("verify.tryLogin")}
              </Link>
            </div>
          </div>
        ) : actionData?.ok === "already" ? (
          <div className="space-y-4">
            <FocusHeading level={1} className="text-2xl font-semibold text-slate-900">
              {t("verify.alreadyTitle")}
            </FocusHeading>
            <p role="status" className="text-slate-700">
              {actionData.paymentDue ? t("verify.alreadyPaymentBody") : t("verify.alreadyBody")}
            </p>
            {actionData.paymentDue && !loaderData.paymentsConfigured ? <PaymentsNotConfigured /> : null}
            <div className="flex flex-wrap gap-3">
              {actionData.paymentDue ? (
                <Link to="/get-started" className={buttonClass()}>
                  {t("verify.completePayment")}
                </Link>
              ) : null}
              <Link to="/login" className={buttonClass(actionData.paymentDue ? "secondary" : "primary")}>
                {t("verify.signIn")}
              </Link>
            </div>
          </div>
        ) : actionData?.ok ? (
          <div className="space-y-5">
            <FocusHeading level={1} className="text-2xl font-semibold text-slate-900">
              {t("verify.successTitle")}
            </FocusHeading>
            <dl className="grid grid-cols-1 gap-3 text-sm sm:grid-cols-[auto_1fr] sm:gap-x-4">
              <dt className="font-medium text-slate-600">{t("verify.businessName")}</dt>
              <dd className="text-slate-900">{actionData.businessName}</dd>
              <dt className="font-medium text-slate-600">{t("verify.ownerName")}</dt>
              <dd className="text-slate-900">{actionData.ownerName}</dd>
              <dt className="font-medium text-slate-600">{t("verify.bookingLink")}</dt>
              <dd className="break-all text-slate-900" dir="ltr">
                {actionData.bookingUrl}
              </dd>
              <dt className="font-medium text-slate-600">{t("verify.status")}</dt>
              <dd>
                <span className="rounded-full bg-amber-100 px-2.5 py-0.5 text-sm font-medium text-amber-900">
                  {t("verify.paymentRequired")}
                </span>
              </dd>
            </dl>
            <StarterOffer />
            {loaderData.paymentsConfigured ? null : <PaymentsNotConfigured />}
            <Link to="/get-started" className={`${buttonClass()} w-full`}>
              {t("verify.completePayment")}
            </Link>
          </div>
        ) : (
          <div className="space-y-4 text-center">
            <FocusHeading level={1} className="text-2xl font-semibold text-slate-900">
              {t("verify.pendingTitle")}
            </FocusHeading>
            <p className="text-slate-700">{t("verify.pendingBody")}</p>
            <Form method="post" noValidate ref={formRef}>
              <AuthenticityTokenInput />
              <input type="hidden" name="token" value={loaderData.token} />
              <input type="hidden" name="email" value={loaderData.email} />
              <Button type="submit" disabled={pending}>
                {pending ? (
                  <>
                    <span aria-hidden="true" className="h-4 w-4 animate-spin rounded-full border-2 border-white border-t-transparent" />
                    {t("verify.pendingTitle")}
                  </>
                ) : (
                  t("verify.confirm")
                )}
              </Button>
            </Form>
          </div>
        )}
      </div>
    </div>
  );
}
