import { useEffect } from "react";
import { useNavigation, useRevalidator } from "react-router";
import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import { CallSummary } from "~/features/empathy/call-summary";
import { CrisisNotice } from "~/ui/crisis-notice";
import { useHydrated } from "~/ui/use-hydrated";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Button, buttonClass, linkClass } from "~/ui/form/button";
import { FocusHeading } from "~/ui/form/focus";
import { isolateNumbers, tIsolated } from "~/ui/bidi";
import type { Route } from "../../routes/+types/empathy";

const FINAL = new Set(["completed", "refunded", "refund_failed"]);

export function EmpathyStatusPage({ loaderData }: Pick<Route.ComponentProps, "loaderData">) {
  const { t, i18n } = useTranslation();
  const revalidator = useRevalidator();
  const navigation = useNavigation();
  const live = !FINAL.has(loaderData.status);

  // With JavaScript the page follows the call by itself; without, the refresh link does.
  useEffect(() => {
    if (!live) return;
    const timer = window.setInterval(() => {
      if (revalidator.state === "idle" && document.visibilityState === "visible") void revalidator.revalidate();
    }, 3000);
    return () => window.clearInterval(timer);
  }, [live, revalidator]);

  // The server does not know the visitor's time zone: UTC first, then local once in the browser.
  const localZone = useHydrated();
  const formatTime = (iso: string | null) =>
    iso
      ? new Intl.DateTimeFormat(i18n.language, {
          hour: "numeric",
          minute: "2-digit",
          ...(localZone ? {} : { timeZone: "UTC", timeZoneName: "short" }),
        }).format(new Date(iso))
      : null;
  const time = formatTime(loaderData.nextAttemptAt);
  const reasons: Record<string, string> = {
    voicemail: t("empathy.reasonVoicemail"),
    model_unreachable: t("empathy.reasonModel"),
    stream_never_connected: t("empathy.reasonAudio"),
    agent_not_heard: t("empathy.reasonAudio"),
    too_short: t("empathy.reasonShort"),
    model_stopped: t("empathy.reasonModelStopped"),
    stream_cut: t("empathy.reasonCut"),
  };
  const missedReason = loaderData.missedReason ? reasons[loaderData.missedReason] : undefined;
  const networkDown = loaderData.refundReason === "telephony_unavailable";
  const progress = {
    queued: t("empathy.progressQueued"),
    initiated: t("empathy.progressRinging"),
    ringing: t("empathy.progressRinging"),
    "in-progress": t(
      loaderData.listener === "failed"
        ? "empathy.progressListenerFailed"
        : loaderData.listener === "spoke"
          ? "empathy.progressConnected"
          : "empathy.progressConnecting",
    ),
    completed: t("empathy.progressCompleted"),
  } as Record<string, string>;
  if (loaderData.dialStalled) progress.queued = t("empathy.progressChecking");

  return (
    <div className="mx-auto max-w-2xl px-4 py-10 sm:py-14">
      <FocusHeading level={1} className="text-3xl font-semibold tracking-tight text-slate-900">
        {t("empathy.statusTitle")}
      </FocusHeading>

      <div className="mt-6" aria-live="polite">
        {loaderData.status === "awaiting_payment" ? (
          <div className="rounded-2xl border border-amber-200 bg-amber-50 p-5 text-amber-950">
            <h2 className="text-xl font-semibold">{t("payment.processingTitle")}</h2>
            <p className="mt-1">{isolateNumbers(t("empathy.awaitingPayment"))}</p>
          </div>
        ) : loaderData.networkDownUntil && (loaderData.status === "calling" || loaderData.status === "retrying") ? (
          <div className="rounded-2xl border border-amber-200 bg-amber-50 p-5 text-amber-950">
            <h2 className="text-xl font-semibold">{t("empathy.networkDownTitle")}</h2>
            <p className="mt-2">{tIsolated(t, "empathy.networkDownBody", { time: formatTime(loaderData.networkDownUntil) ?? "" })}</p>
            <p className="mt-1 text-sm">{isolateNumbers(t("empathy.paymentKept"))}</p>
          </div>
        ) : loaderData.status === "calling" || loaderData.status === "completed" ? (
          <div className="rounded-2xl border border-emerald-200 bg-emerald-50 p-5 text-emerald-950">
            <h2 className="flex items-center gap-2 text-xl font-semibold">
              <span aria-hidden="true" className="flex h-7 w-7 items-center justify-center rounded-full bg-emerald-700 text-sm text-white">
                ✓
              </span>
              {t("empathy.initiatedTitle")}
            </h2>
            {loaderData.status === "calling" ? (
              <p className="mt-2">
                {loaderData.bridgeDown
                  ? t("empathy.waitingForBridge")
                  : loaderData.queuePosition
                    ? tIsolated(t, "empathy.linesBusy", { position: loaderData.queuePosition })
                    : isolateNumbers(t("empathy.expectation"))}
              </p>
            ) : null}
            {loaderData.callStatus && progress[loaderData.callStatus] ? (
              <p className="mt-2 font-medium">{isolateNumbers(progress[loaderData.callStatus] ?? "")}</p>
            ) : null}
          </div>
        ) : loaderData.status === "retrying" ? (
          <div className="rounded-2xl border border-amber-200 bg-amber-50 p-5 text-amber-950">
            <h2 className="text-xl font-semibold">{t("empathy.missedTitle")}</h2>
            {missedReason ? <p className="mt-2">{isolateNumbers(missedReason)}</p> : null}
            <p className="mt-2">
              {loaderData.callStatus === "queued" && !loaderData.dialStalled
                ? tIsolated(t, missedReason ? "empathy.missedAgain" : "empathy.missedBody", {
                    attempt: loaderData.attempt - 1,
                    attempts: loaderData.attempts,
                    time: time ?? "",
                  })
                : isolateNumbers(progress[loaderData.callStatus ?? ""] ?? t("empathy.progressQueued"))}
            </p>
            {loaderData.bridgeDown ? <p className="mt-2">{t("empathy.waitingForBridge")}</p> : null}
            <p className="mt-1 text-sm">{isolateNumbers(t("empathy.paymentKept"))}</p>
            {loaderData.callStatus === "queued" && !loaderData.dialStalled ? (
              <Form method="post" noValidate className="mt-4">
                <AuthenticityTokenInput />
                <Button type="submit" disabled={navigation.state !== "idle"}>
                  {t("empathy.retryNow")}
                </Button>
              </Form>
            ) : null}
          </div>
        ) : loaderData.status === "refund_failed" ? (
          <div className="rounded-2xl border border-amber-200 bg-amber-50 p-5 text-amber-950">
            <h2 className="text-xl font-semibold">{t("empathy.refundFailedTitle")}</h2>
            <p className="mt-2">{isolateNumbers(t("empathy.refundFailedBody"))}</p>
          </div>
        ) : (
          // "Refunded" only once Stripe said so; until then the refund is on its way.
          <div className="rounded-2xl border border-slate-200 bg-slate-50 p-5 text-slate-900">
            <h2 className="text-xl font-semibold">
              {isolateNumbers(t(loaderData.status === "refunded" ? "empathy.refundedTitle" : "empathy.refundingTitle"))}
            </h2>
            <p className="mt-2">
              {loaderData.status === "refunded"
                ? tIsolated(t, networkDown ? "empathy.refundedNetworkBody" : "empathy.refundedBody", { attempts: loaderData.attempts })
                : tIsolated(t, networkDown ? "empathy.refundingNetworkBody" : "empathy.refundingBody", { attempts: loaderData.attempts })}
            </p>
          </div>
        )}
      </div>

      <CallSummary className="mt-6" phone={loaderData.phone} language={loaderData.language} voice={loaderData.voice} />

      {live ? (
        <p className="mt-4 text-sm text-slate-700">
          {isolateNumbers(t("empathy.refreshHint"))}{" "}
          <Link to="." reloadDocument className={linkClass}>
            {t("empathy.refresh")}
          </Link>
        </p>
      ) : null}
      <p className="mt-2 text-sm text-slate-600">{isolateNumbers(t("empathy.privacyNote"))}</p>

      <div className="mt-8">
        <CrisisNotice country={loaderData.helpCountry ?? undefined} />
      </div>
      <Link to="/" className={`${buttonClass("secondary")} mt-8`}>
        {t("empathy.another")}
      </Link>
    </div>
  );
}
