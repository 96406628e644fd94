import { data, isRouteErrorResponse, redirect } from "react-router";
import { Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/empathy";
import { buttonClass } from "~/ui/form/button";
import { callLanguages } from "~/lib/languages";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { helpCountryOf } from "~/voice/crisis.server";
import { empathyCalls, findEmpathyRequest, type EmpathyRequest } from "#models/empathy";
import { dialStalled, queuePosition } from "#models/calls";
import { servicesContext } from "~/platform/context";
import {
  EMPATHY_CALL_ATTEMPTS,
  empathyStatusPath,
  parseEmpathyToken,
  retryEmpathyCallNow,
  startEmpathyCall,
} from "~/features/empathy/empathy.server";
import { getT } from "~/platform/i18n.server";
import { dialDeadline } from "~/calls/engine.server";
import { bridgeReachable } from "~/voice/bridge-leases.server";
import { PaymentsError, requirePayments } from "~/providers/payments.server";
import type { AppServices } from "~/platform/services.server";
import { firstExceededRule } from "~/platform/security/rate-limit.server";
import { redirectWithToast } from "~/platform/http/toast.server";
import { FocusHeading } from "~/ui/form/focus";
import { ErrorPage } from "~/ui/shell/error-page";
import { EmpathyStatusPage } from "~/features/empathy/status-page";

/** The country code and the last four digits: enough to recognise one's own number, no more. */
function maskPhone(e164: string | null) {
  if (!e164) return null;
  const parsed = parsePhoneNumberFromString(e164);
  if (!parsed) return `••• ${e164.slice(-4)}`;
  const national = parsed.formatNational();
  let keep = 4;
  const masked = [...national]
    .reverse()
    .map((char) => (/\d/.test(char) ? (keep-- > 0 ? char : "•") : char))
    .reverse()
    .join("");
  return `+${parsed.countryCallingCode} ${masked}`;
}

async function requestFor(context: Route.LoaderArgs["context"], token: string) {
  const services = context.get(servicesContext);
  const id = parseEmpathyToken(services, token);
  const request = id ? await findEmpathyRequest(services.db, id) : null;
  if (!request) {
    const t = getT(context);
    throw data({ message: t("empathy.statusNotFound") }, { status: 404 });
  }
  return request;
}

/**
 * The call for a Checkout the customer just paid, or null when the session is not paid for this
 * request. When Stripe cannot be asked, the customer sees that the payment is safe (the webhook
 * places the call once Stripe answers) and a link that asks again: never "Call not found".
 */
async function placePaidCall(services: AppServices, empathy: EmpathyRequest, sessionId: string) {
  try {
    const checkout = await requirePayments(services.payments).findCheckout(sessionId);
    if (checkout?.metadata.empathyRequestId !== String(empathy.id) || !checkout.paymentId) return null;
    return await startEmpathyCall(services, checkout.paymentId, services.publicOrigin());
  } catch (error) {
    if (!(error instanceof PaymentsError)) throw error;
    const retry = `${empathyStatusPath(services, empathy.id)}?session_id=${encodeURIComponent(sessionId)}`;
    throw data({ unconfirmed: true, retry }, { status: 503 });
  }
}

export async function loader({ url, params, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const empathy = await requestFor(context, params.token);
  const sessionId = url.searchParams.get("session_id");

  // Back from Stripe Checkout (the no-JavaScript path): place the call, then show the clean address.
  if (sessionId) {
    if (/^cs_[A-Za-z0-9_]{1,200}$/.test(sessionId) && sessionId === empathy.checkoutSessionId && empathy.status === "awaiting_payment") {
      const result = await placePaidCall(services, empathy, sessionId);
      if (result?.ok || result?.reason === "already_used") {
        // The clean address's loader then forgets the draft, as it does after a paid request.
        throw await redirectWithToast(services, empathyStatusPath(services, empathy.id), {
          type: "success",
          title: t("payment.successTitle"),
          description: t("empathy.initiatedTitle"),
        });
      }
    }
    throw redirect(empathyStatusPath(services, empathy.id));
  }

  const calls = await empathyCalls(services.db, empathy.id);
  const latest = calls[0] ?? null;
  // Why the attempt before the waiting one did not count (a machine answered, the listener could not join…).
  const missed = calls.find((call) => call.delivered === false) ?? null;
  // The phone network is failing for the attempt being dialled: we say until when we keep trying.
  const networkDownUntil =
    latest?.status === "queued" && latest.dialFailingSince
      ? dialDeadline(latest, services.env.DIAL_RETRY_WINDOW_SECONDS).toISOString()
      : null;
  const language = callLanguages.find((entry) => entry.code === empathy.language) ?? callLanguages[0];
  const cleared = empathy.status !== "awaiting_payment" ? await services.cookies.empathyDraft.serialize("", { maxAge: 0 }) : null;
  return data(
    {
      title: `${t("empathy.statusTitle")} · Sakina`,
      status: empathy.status,
      phone: maskPhone(empathy.phone),
      language: language.nativeName,
      voice: empathy.voiceGender as "female" | "male",
      attempt: latest?.attempt ?? 0,
      attempts: EMPATHY_CALL_ATTEMPTS,
      callStatus: latest?.status ?? null,
      // A dial the provider has not answered for a while (its process may have died mid-dial): the
      // page says it is being checked, since the retried dial adopts the call if the phone rings.
      dialStalled: latest ? dialStalled(latest) : false,
      // Twilio's "in-progress" says only that the phone was answered: the page says connected once
      // the listener's voice reached the caller, and the truth while it has not or cannot.
      listener: latest?.modelFailedAt ? ("failed" as const) : latest?.agentHeardAt ? ("spoke" as const) : ("waiting" as const),
      // When the waiting attempt will ring (its job's start), shown as a time of day.
      nextAttemptAt:
        empathy.status === "retrying" && latest?.status === "queued"
          ? nextAttemptTime(latest.createdAt, services.env.EMPATHY_RETRY_DELAY_SECONDS)
          : null,
      hasEmail: Boolean(empathy.email),
      missedReason: missed?.undeliveredReason ?? null,
      networkDownUntil,
      refundReason: empathy.refundReason,
      // Waiting for a free line: its place in the queue.
      queuePosition: latest ? await queuePosition(services.db, latest) : null,
      // Held back because no bridge is up to carry the call's audio (a restart): it waits, and says so.
      bridgeDown: latest?.status === "queued" ? !(await bridgeReachable(services.db)) : false,
      // The called number's country (the number is erased after a day: then the browser's guess).
      helpCountry: helpCountryOf(empathy.phone),
    },
    cleared ? { headers: { "Set-Cookie": cleared } } : undefined,
  );
}

function nextAttemptTime(createdAt: Date, delaySeconds: number) {
  return new Date(createdAt.getTime() + delaySeconds * 1000).toISOString();
}

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: loaderData?.title ?? "Sakina" },
  { name: "robots", content: "noindex" },
];

export async function action({ params, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const empathy = await requestFor(context, params.token);
  const path = empathyStatusPath(services, empathy.id);
  const exceeded = await firstExceededRule(context, [
    { name: "empathy-retry:request", subject: String(empathy.id), limit: 5, windowSeconds: 3600 },
  ]);
  if (exceeded) {
    return redirectWithToast(services, path, {
      type: "error",
      title: t("common.errorTitle"),
      description: t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }),
    });
  }
  const retried = await retryEmpathyCallNow(services, empathy);
  return redirectWithToast(
    services,
    path,
    retried
      ? { type: "success", title: t("empathy.retryingNowTitle"), description: t("empathy.expectation") }
      : { type: "info", title: t("empathy.retryNotNeededTitle"), description: t("empathy.retryNotNeededBody") },
  );
}

export default function EmpathyStatus({ loaderData }: Route.ComponentProps) {
  return <EmpathyStatusPage loaderData={loaderData} />;
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const { t } = useTranslation();
  if (isRouteErrorResponse(error) && error.status === 503 && error.data?.unconfirmed) {
    return (
      <div className="mx-auto max-w-xl px-4 py-16">
        <FocusHeading level={1} className="text-2xl font-semibold text-slate-900">
          {t("empathy.returnUnconfirmedTitle")}
        </FocusHeading>
        <p className="mt-3 text-slate-700">{t("empathy.returnUnconfirmedBody")}</p>
        <p className="mt-3 text-slate-700">{t("empathy.returnUnconfirmedNext")}</p>
        {/* A plain link: the loader asks Stripe again, with or without JavaScript. */}
        <a href={String(error.data.retry)} className={`${buttonClass()} mt-6`}>
          {t("empathy.returnRetry")}
        </a>
      </div>
    );
  }
  if (!isRouteErrorResponse(error) || error.status !== 404) return <ErrorPage error={error} />;
  return (
    <div className="mx-auto max-w-xl px-4 py-16">
      <FocusHeading level={1} className="text-2xl font-semibold text-slate-900">
        {t("empathy.statusNotFoundTitle")}
      </FocusHeading>
      <p className="mt-3 text-slate-700">{t("empathy.statusNotFound")}</p>
      <Link to="/" className={`${buttonClass()} mt-6`}>
        {t("errors.goHome")}
      </Link>
    </div>
  );
}
