import { redirect } from "react-router";
import { Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/get-started.complete";
import { buttonClass } from "~/ui/form/button";
import { activateWithPayment } from "~/features/business/signup/onboarding.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";
import { requirePayments } from "~/providers/payments.server";
import { redirectWithToast } from "~/platform/http/toast.server";
import { FocusHeading } from "~/ui/form/focus";
import { parseDbId } from "~/lib/ids";

/** Where Stripe Checkout returns (the no-JavaScript payment path): activate, then show the result. */
export async function loader({ url, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const sessionId = url.searchParams.get("session_id") ?? "";
  if (!/^cs_[A-Za-z0-9_]+$/.test(sessionId)) throw redirect("/get-started");
  const payments = requirePayments(services.payments);
  const checkout = await payments.findCheckout(sessionId).catch(() => null);
  const businessId = parseDbId(checkout?.metadata.businessId);
  const intentId = checkout?.paymentId;
  if (checkout?.metadata.purpose !== "business_starter" || !businessId || !intentId) throw redirect("/get-started");
  const result = await activateWithPayment(services, businessId, intentId, services.publicOrigin());
  if (!result.ok) {
    return {
      title: `${t("activation.failedTitle")} · Sakina`,
      status: result.reason === "not_succeeded" ? (result.status ?? "processing") : null,
    };
  }
  const params = new URLSearchParams({
    email: result.business.email,
    businessName: result.business.name,
    loginEmail: result.business.email,
    bookingLink: result.business.bookingLink,
  });
  throw await redirectWithToast(services, `/setup-complete?${params}`, {
    type: "success",
    title: t("payment.successTitle"),
    description: t("register.activated"),
  });
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export default function CheckoutReturn({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <div className="mx-auto max-w-xl px-4 py-16">
      <FocusHeading level={1} className="text-2xl font-semibold text-slate-900">
        {loaderData.status ? t("payment.processingTitle") : t("activation.failedTitle")}
      </FocusHeading>
      <p className="mt-3 text-slate-700">
        {loaderData.status ? t("payment.processing", { status: loaderData.status }) : t("activation.failedBody")}
      </p>
      <Link to="/get-started" className={`${buttonClass()} mt-6`}>
        {t("register.backToPayment")}
      </Link>
    </div>
  );
}
