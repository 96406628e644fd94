import type { RouterContextProvider } from "react-router";
import type { Subscriber } from "#models/subscribers";
import { apiError, readJsonBody } from "~/platform/http/api.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";
import { PaymentsError } from "~/providers/payments.server";
import { refusedApi, subscriberFor } from "./access.server";
import { cancelAtPeriodEnd, upgradeNow } from "./billing.server";
import { dashboardData } from "./dashboard-data.server";

/** The preference fields as the spec's profile API names them. */
export function profileOf(subscriber: Subscriber) {
  return {
    preferredLanguage: subscriber.preferredLanguage,
    voiceGender: subscriber.voiceGender,
    callScheduleType: subscriber.callScheduleType,
    preferredCallTime: subscriber.preferredCallTime,
    timezone: subscriber.timeZone,
    callReminders: subscriber.callReminders,
    nextCallAt: subscriber.nextCallAt?.toISOString() ?? null,
  };
}

/** POST /api/subscription/upgrade and /cancel { userId }: the spec's toasts' titles and texts. */
export async function subscriptionChange(context: Readonly<RouterContextProvider>, request: Request, change: "upgrade" | "cancel") {
  const services = context.get(servicesContext);
  const t = getT(context);
  const body = await readJsonBody(request);
  const access = await subscriberFor(services, request, body.userId === undefined ? null : String(body.userId));
  if (!access.ok) return refusedApi(t, access.reason);
  const failed = change === "upgrade" ? t("subscribe.dash.upgradeFailedBody") : t("subscribe.dash.cancelFailedBody");
  if (!services.payments) return apiError(503, t("payment.notConfigured"));
  try {
    const updated =
      change === "upgrade" ? await upgradeNow(services, access.subscriber) : await cancelAtPeriodEnd(services, access.subscriber);
    if (!updated)
      return apiError(409, failed, { title: change === "upgrade" ? t("subscribe.dash.upgradeFailed") : t("subscribe.dash.cancelFailed") });
    const title = change === "upgrade" ? t("subscribe.dash.upgraded") : t("subscribe.dash.cancelled");
    const message = change === "upgrade" ? t("subscribe.dash.upgradedBody") : t("subscribe.dash.cancelledBody");
    return Response.json({ success: true, title, message, dashboard: await dashboardData(services, updated) });
  } catch (error) {
    if (error instanceof PaymentsError) return apiError(502, failed);
    throw error;
  }
}
