import { data, redirect } from "react-router";
import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/subscription.card";
import { ConsumerRefused } from "~/features/subscriptions/dashboard-page";
import { refusedPage, subscriberFor } from "~/features/subscriptions/access.server";
import { PLAN_CURRENCY } from "~/features/subscriptions/plans";
import { cardSaved } from "~/features/subscriptions/billing.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";
import { redirectWithToast } from "~/platform/http/toast.server";
import { PaymentsError, requirePayments } from "~/providers/payments.server";
import { Button, buttonClass } from "~/ui/form/button";
import { Card } from "~/ui/card";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { FocusHeading } from "~/ui/form/focus";

/**
 * /subscription/card?userId=N: a new card, entered on Stripe's page (setup mode), works without
 * JavaScript. Back here with `checkout=`, the card becomes the plan's card and an unpaid invoice is
 * tried again with it.
 */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const access = await subscriberFor(services, request, url.searchParams.get("userId"));
  if (!access.ok) return refusedPage(t, access.reason);

  const { subscriber } = access;
  const checkoutId = url.searchParams.get("checkout");
  if (checkoutId && /^cs_[A-Za-z0-9_]{1,200}$/.test(checkoutId) && services.payments) {
    try {
      const checkout = await requirePayments(services.payments).findCheckout(checkoutId);
      if (checkout?.setupIntentId && checkout.metadata.subscriberId === String(subscriber.id)) {
        await cardSaved(services, { subscriberId: subscriber.id, setupIntentId: checkout.setupIntentId });
        throw await redirectWithToast(services, `/dashboard?userId=${subscriber.id}`, {
          type: "success",
          title: t("subscribe.dash.cardUpdated"),
        });
      }
    } catch (error) {
      if (!(error instanceof PaymentsError)) throw error;
      // Stripe did not answer or refused: the page says so, and its button starts the card step again.
      return data(
        { kind: "ok" as const, title: `${t("subscribe.card.title")} · Sakina`, userId: subscriber.id, error: t("subscribe.card.failed") },
        { status: 503 },
      );
    }
  }
  return { kind: "ok" as const, title: `${t("subscribe.card.title")} · Sakina`, userId: subscriber.id, error: null };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export async function action({ request, url, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const access = await subscriberFor(services, request, url.searchParams.get("userId"));
  if (!access.ok) throw data(null, { status: 403 });
  const { subscriber } = access;
  if (!services.billing || !subscriber.stripeCustomerId) return data({ error: t("payment.notConfigured") }, { status: 503 });
  const origin = services.publicOrigin();
  try {
    const checkout = await services.billing.createCardCheckout({
      customerId: subscriber.stripeCustomerId,
      currency: PLAN_CURRENCY,
      metadata: { purpose: "subscription_card", subscriberId: String(subscriber.id) },
      successUrl: `${origin}/subscription/card?userId=${subscriber.id}&checkout={CHECKOUT_ID}`,
      cancelUrl: `${origin}/subscription/card?userId=${subscriber.id}`,
    });
    return redirect(checkout.url);
  } catch (error) {
    if (error instanceof PaymentsError) return data({ error: t("subscribe.card.failed") }, { status: 502 });
    throw error;
  }
}

export default function UpdateCard({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  if (loaderData.kind === "consumer-refused") return <ConsumerRefused title={loaderData.title} invalid={loaderData.invalid} />;
  const error = actionData?.error ?? loaderData.error;
  return (
    <div className="mx-auto max-w-md px-4 py-12 sm:py-16">
      <Card>
        <FocusHeading level={1} className="text-2xl font-semibold text-slate-900">
          {t("subscribe.card.title")}
        </FocusHeading>
        <p className="mt-2 text-slate-700">{t("subscribe.card.intro")}</p>
        {error ? (
          <p role="alert" className="mt-3 rounded-lg bg-rose-50 p-3 text-sm text-rose-800">
            {error}
          </p>
        ) : null}
        <Form method="post" noValidate className="mt-5">
          <AuthenticityTokenInput />
          <Button type="submit" className="w-full">
            {t("subscribe.card.button")}
          </Button>
        </Form>
        <Link to={`/dashboard?userId=${loaderData.userId}`} className={`${buttonClass("secondary")} mt-3 w-full`}>
          {t("subscribe.prefs.backToDashboard")}
        </Link>
      </Card>
    </div>
  );
}
