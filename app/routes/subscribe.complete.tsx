import { data, redirect } from "react-router";
import { Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/subscribe.complete";
import { findSubscriber } from "#models/subscribers";
import { getSubscriberId } from "~/features/auth/auth.server";
import { syncSubscription } from "~/features/subscriptions/billing.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";
import { PaymentsError, requirePayments } from "~/providers/payments.server";
import { buttonClass } from "~/ui/form/button";
import { Card } from "~/ui/card";
import { FocusHeading } from "~/ui/form/focus";
import { Steps } from "~/ui/form/steps";

/**
 * Where the card step returns (the Payment Element, or Stripe Checkout with `?checkout=`): the
 * subscription is read from Stripe, not from the URL, and shown only to the signed-in subscriber.
 * When Stripe does not answer, the page says so and offers to ask again.
 */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const id = await getSubscriberId(services, request);
  let subscriber = id ? await findSubscriber(services.db, id) : null;
  if (!subscriber) throw redirect("/sign-in");
  const checkoutId = url.searchParams.get("checkout");
  try {
    if (checkoutId && /^cs_[A-Za-z0-9_]{1,200}$/.test(checkoutId) && services.payments) {
      const checkout = await requirePayments(services.payments).findCheckout(checkoutId);
      if (checkout?.subscriptionId && checkout.metadata.subscriberId === String(subscriber.id)) {
        subscriber = (await syncSubscription(services, checkout.subscriptionId, { subscriberId: subscriber.id })) ?? subscriber;
      }
    } else if (subscriber.stripeSubscriptionId && services.payments) {
      subscriber = (await syncSubscription(services, subscriber.stripeSubscriptionId)) ?? subscriber;
    }
  } catch (error) {
    if (!(error instanceof PaymentsError)) throw error;
    // The card is safe at Stripe whatever happened; the same address asks Stripe again.
    return data(
      {
        title: `${t("subscribe.unreachable.title")} · Sakina`,
        state: "unreachable" as const,
        retry: url.pathname + url.search,
        userId: null,
      },
      { status: 503, headers: { "Retry-After": "30" } },
    );
  }
  const active = subscriber.status !== "incomplete";
  return {
    title: `${active ? t("subscribe.successTitle") : t("subscribe.pendingTitle")} · Sakina`,
    state: active ? ("active" as const) : ("pending" as const),
    retry: null,
    userId: subscriber.id,
  };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export default function SubscribeComplete({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const dashboard = `/dashboard?userId=${loaderData.userId}`;
  return (
    <div className="mx-auto max-w-2xl px-4 py-10 sm:py-14">
      <h1 className="text-3xl font-semibold tracking-tight text-slate-900">{t("subscribe.title")}</h1>
      <div className="mt-6">
        <Steps
          steps={[t("subscribe.steps.form"), t("subscribe.steps.payment"), t("subscribe.steps.success")]}
          current={loaderData.state === "active" ? 2 : 1}
        />
      </div>
      {loaderData.state === "unreachable" ? (
        <Card className="mt-6">
          <div role="alert">
            <FocusHeading key="unreachable" level={2} className="text-2xl font-semibold text-slate-900">
              {t("subscribe.unreachable.title")}
            </FocusHeading>
            <p className="mt-2 text-slate-700">{t("subscribe.unreachable.body")}</p>
          </div>
          <Link to={loaderData.retry} reloadDocument className={`${buttonClass()} mt-5`}>
            {t("subscribe.unreachable.retry")}
          </Link>
        </Card>
      ) : loaderData.state === "active" ? (
        <Card tone="brand" className="mt-6">
          <div role="status">
            <FocusHeading key="done" level={2} className="text-2xl font-semibold">
              {t("subscribe.successTitle")}
            </FocusHeading>
            <p className="mt-2">{t("subscribe.successBody")}</p>
          </div>
          <div className="mt-5 flex flex-wrap gap-3">
            <Link to={dashboard} className={buttonClass()}>
              {t("subscribe.goToDashboard")}
            </Link>
            <Link to={`${dashboard}#request-call`} className={buttonClass("secondary")}>
              {t("subscribe.requestFirstCall")}
            </Link>
          </div>
        </Card>
      ) : (
        <Card className="mt-6">
          <div role="status">
            <FocusHeading key="pending" level={2} className="text-2xl font-semibold text-slate-900">
              {t("subscribe.pendingTitle")}
            </FocusHeading>
            <p className="mt-2 text-slate-700">{t("subscribe.pendingBody")}</p>
          </div>
          <div className="mt-5 flex flex-wrap gap-3">
            <Link to="/subscribe/complete" reloadDocument className={buttonClass()}>
              {t("subscribe.checkAgain")}
            </Link>
            <Link to="/subscribe?step=payment" className={buttonClass("secondary")}>
              {t("subscribe.paymentTitle")}
            </Link>
          </div>
        </Card>
      )}
    </div>
  );
}
