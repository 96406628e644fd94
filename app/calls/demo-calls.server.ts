import type { TFunction } from "i18next";
import type { RouterContextProvider } from "react-router";
import { refusalMessage, screenNumber } from "~/calls/dialling-policy.server";
import { queueCall, visitorOrigin } from "~/calls/gate.server";
import { servicesContext } from "~/platform/context";
import { clientIp, firstExceededRule, phoneLimitSubject } from "~/platform/security/rate-limit.server";

export type DemoCallResult = { ok: true; callId: number } | { ok: false; status: number; message: string };

/**
 * A free demo call of the booking agent. Free calls to any number invite toll fraud and
 * harassment, so: valid numbers in allowed countries only, no premium or unroutable ranges,
 * per-visitor and per-number limits, and a daily cap.
 */
export async function placeDemoCall(
  context: Readonly<RouterContextProvider>,
  t: TFunction,
  language: string,
  input: string,
): Promise<DemoCallResult> {
  const services = context.get(servicesContext);
  if (!services.telephony.configured) return { ok: false, status: 503, message: t("demo.notConfigured") };
  const origin = visitorOrigin(services, clientIp(context));
  const phone = await screenNumber(services, input, { path: "demo", origin, countries: services.env.DEMO_CALL_COUNTRIES });
  if (!phone.ok) {
    const messages: Partial<Record<typeof phone.reason, string>> = {
      empty: t("demo.phoneRequired"),
      invalid: t("demo.phoneInvalid"),
      country: t("demo.countryRefused"),
      premium: t("demo.premiumRefused"),
      unroutable: t("demo.premiumRefused"),
    };
    return { ok: false, status: phone.reason === "ip_cap" ? 429 : 400, message: messages[phone.reason] ?? refusalMessage(t, phone.reason) };
  }
  const exceeded = await firstExceededRule(context, [
    { name: "demo:ip", subject: clientIp(context), limit: 3, windowSeconds: 3600 },
    { name: "demo:number", subject: phoneLimitSubject(phone.e164), limit: 2, windowSeconds: 86_400 },
    { name: "demo:day", subject: "all", limit: services.env.DEMO_CALLS_PER_DAY, windowSeconds: 86_400 },
  ]);
  if (exceeded) {
    const message =
      exceeded.rule.name === "demo:day" ? t("demo.dailyCap") : t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes });
    return { ok: false, status: 429, message };
  }
  const queued = await queueCall(services, { purpose: "demo", to: phone.e164, language, voice: "shimmer", origin });
  if (!queued.ok) return { ok: false, status: queued.reason === "ip_cap" ? 429 : 400, message: refusalMessage(t, queued.reason) };
  return { ok: true, callId: queued.call.id };
}
