import { data, redirect, type RouterContextProvider } from "react-router";
import { setSupportCallSummary } from "#models/subscribers";
import { commitSubscriberLogout } from "~/features/auth/index.server";
import { parseDbId } from "~/lib/ids";
import { formatMoney } from "~/lib/money";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";
import { clientIp, firstExceededRule } from "~/platform/security/rate-limit.server";
import { refusalMessage } from "~/calls/dialling-policy.server";
import { requestOrigin } from "~/calls/gate.server";
import { redirectWithToast } from "~/platform/http/toast.server";
import { PaymentsError } from "~/providers/payments.server";
import { checkCallRequest, refusedPage, subscriberFor } from "./access.server";
import { PLAN_CURRENCY, PLAN_PRICE_CENTS, type CallFrequency } from "./plans";
import { cancelAtPeriodEnd, upgradeNow } from "./billing.server";
import { dashboardData } from "./dashboard-data.server";
import { requestSupportCall } from "./support-calls.server";

/**
 * The consumer's dashboard (/dashboard?userId=N), for the session that owns user N. Anyone else,
 * and any id that does not exist, sees the same "sign in" page; a malformed id is "Invalid user ID".
 */
export async function consumerDashboard(context: Readonly<RouterContextProvider>, request: Request, url: URL) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const access = await subscriberFor(services, request, url.searchParams.get("userId"));
  if (!access.ok) return refusedPage(t, access.reason);
  const dashboard = await dashboardData(services, access.subscriber);
  return data(
    {
      kind: "consumer" as const,
      title: `${t("subscribe.dash.welcome", { name: access.subscriber.fullName })} · Sakina`,
      dashboard,
      price: formatMoney(
        PLAN_PRICE_CENTS[access.subscriber.callFrequency as CallFrequency],
        PLAN_CURRENCY,
        access.subscriber.preferredLanguage,
      ),
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export type ConsumerDashboardData = Extract<Awaited<ReturnType<typeof consumerDashboard>>["data"], { kind: "consumer" }>;

/** The dashboard's forms: request a call, upgrade, cancel or keep, delete a summary, sign out. */
export async function consumerDashboardAction(context: Readonly<RouterContextProvider>, request: Request, url: URL) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const access = await subscriberFor(services, request, url.searchParams.get("userId"));
  if (!access.ok) throw data(null, { status: 403 });
  const { subscriber } = access;
  const here = `/dashboard?userId=${subscriber.id}`;
  const form = Object.fromEntries(await request.formData());
  const fail = (title: string, description: string) => redirectWithToast(services, here, { type: "error", title, description });
  try {
    switch (form.intent) {
      case "request_call": {
        const checked = checkCallRequest(t, form);
        if (!checked.ok)
          return data(
            { fields: checked.fields, values: { feeling: String(form.feeling ?? "").slice(0, 300), urgency: String(form.urgency ?? "") } },
            { status: 400 },
          );
        const exceeded = await firstExceededRule(context, [
          { name: "support-call:subscriber", subject: String(subscriber.id), limit: 10, windowSeconds: 3600 },
        ]);
        if (exceeded) return fail(t("subscribe.dash.callRefused"), t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }));
        const origin = requestOrigin(services, "subscriber", clientIp(context), `subscriber:${subscriber.id}`);
        const result = await requestSupportCall(services, subscriber.id, { ...checked.value, origin });
        // Refused by the dialling policy (the number's calls of the day are used up): said on the
        // form, beside the button, with what was typed kept; nothing was queued.
        if (!result.ok && result.reason === "refused")
          return data(
            {
              fields: {},
              // The number's cap in the words the dashboard uses for it before anyone asks.
              formError: result.refusal === "number_cap" ? t("subscribe.limit.number_cap") : refusalMessage(t, result.refusal),
              values: { feeling: checked.value.feeling, urgency: checked.value.urgency },
            },
            { status: 400 },
          );
        if (!result.ok) return fail(t("subscribe.dash.callRefused"), t(`subscribe.limit.${result.reason}`, { date: "" }));
        return redirectWithToast(services, here, {
          type: "success",
          title: t("subscribe.dash.callRequested"),
          description: t("subscribe.dash.callRequestedBody", { phone: subscriber.phone }),
        });
      }
      case "upgrade": {
        const updated = await upgradeNow(services, subscriber);
        if (!updated) return fail(t("subscribe.dash.upgradeFailed"), t("subscribe.dash.upgradeFailedBody"));
        return redirectWithToast(services, here, {
          type: "success",
          title: t("subscribe.dash.upgraded"),
          description: t("subscribe.dash.upgradedBody"),
        });
      }
      case "cancel":
      case "resume": {
        const updated = await cancelAtPeriodEnd(services, subscriber, form.intent === "cancel");
        if (!updated) return fail(t("subscribe.dash.cancelFailed"), t("subscribe.dash.cancelFailedBody"));
        return form.intent === "cancel"
          ? redirectWithToast(services, here, {
              type: "success",
              title: t("subscribe.dash.cancelled"),
              description: t("subscribe.dash.cancelledBody"),
            })
          : redirectWithToast(services, here, { type: "success", title: t("subscribe.dash.resumed") });
      }
      case "delete_summary": {
        const id = parseDbId(form.supportCallId);
        const deleted = id ? await setSupportCallSummary(services.db, subscriber.id, id, null) : null;
        if (!deleted) throw data({ message: t("subscribe.dash.summaryNotFound") }, { status: id ? 404 : 400 });
        return redirectWithToast(services, here, { type: "success", title: t("subscribe.dash.summaryDeleted") });
      }
      case "sign_out": {
        const cookie = await commitSubscriberLogout(services, request);
        return redirect("/", { headers: { "Set-Cookie": cookie } });
      }
      default:
        throw data(null, { status: 400 });
    }
  } catch (error) {
    if (error instanceof PaymentsError) {
      return form.intent === "upgrade"
        ? fail(t("subscribe.dash.upgradeFailed"), t("subscribe.dash.upgradeFailedBody"))
        : fail(t("subscribe.dash.cancelFailed"), t("subscribe.dash.cancelFailedBody"));
    }
    throw error;
  }
}
