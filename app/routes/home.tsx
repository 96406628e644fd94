import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import type { Route } from "./+types/home";
import type { ShellHandle } from "~/ui/shell/shell";
import { empathyDetailsSchema } from "~/features/empathy/schemas";
import { formatPhone } from "~/platform/phone.server";
import { recordFunnelEvent } from "#models/empathy";
import { servicesContext } from "~/platform/context";
import { callsUnavailable } from "~/calls/readiness.server";
import { clientIp } from "~/platform/security/rate-limit.server";
import {
  checkEmpathyDetails,
  createEmpathyCheckout,
  exceededPaymentLimit,
  languageCode,
  type EmpathyDetails,
} from "~/features/empathy/empathy.server";
import { getT, getLocale } from "~/platform/i18n.server";
import { likelyHelpCountry } from "~/lib/help-lines";
import { helpCountryOf } from "~/voice/crisis.server";
import { redirectWithToast } from "~/platform/http/toast.server";
import { PaymentsError } from "~/providers/payments.server";
import { HomePage } from "~/features/empathy/home-page";

function isDraft(value: unknown): value is EmpathyDetails {
  const draft = value as EmpathyDetails | null;
  return Boolean(draft && typeof draft.phone === "string" && typeof draft.language === "string" && typeof draft.voice === "string");
}

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const stored = await services.cookies.empathyDraft.parse(request.headers.get("Cookie"));
  // The phone number shown back is formatted here: the formatting rules stay out of the browser.
  const draft = isDraft(stored) ? { ...stored, shownPhone: formatPhone(stored.phone) } : null;
  const wantsPayment = url.searchParams.get("step") === "payment";
  return {
    title: `${t("meta.appName")} · ${t("home.title")}`,
    description: t("home.intro"),
    step: wantsPayment && draft ? ("payment" as const) : ("details" as const),
    draft,
    paymentsConfigured: Boolean(services.payments),
    callsUnavailable: callsUnavailable(services),
    // The notice speaks of recording only when calls are really recorded.
    recordCalls: services.env.RECORD_CALLS,
    // The number the visitor gave is the best guess of where they are; a country they pick wins.
    helpCountry: likelyHelpCountry({
      chosen: url.searchParams.get("helpCountry"),
      phoneCountry: helpCountryOf(draft?.phone),
      acceptLanguage: request.headers.get("Accept-Language"),
      pageLanguage: getLocale(context),
    }),
  };
}

// Step one is a plain form (app/ui/enhance.js, no React); the payment step needs Stripe's
// elements, which React drives (ADR 0016).
export const handle = {
  hydrate: (data: unknown) => (data as { step?: string } | undefined)?.step === "payment",
} satisfies ShellHandle;

export const meta: Route.MetaFunction = ({ loaderData: data }) => [{ name: "description", content: data?.description ?? "" }];

export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const formData = await request.formData();

  if (formData.get("intent") === "checkout") {
    const stored = await services.cookies.empathyDraft.parse(request.headers.get("Cookie"));
    if (!isDraft(stored)) return redirect("/");
    if (!services.payments || !services.telephony.configured) {
      return redirectWithToast(services, "/?step=payment", {
        type: "error",
        title: t("payment.failedTitle"),
        description: services.payments ? t("empathy.callsNotConfigured") : t("payment.notConfigured"),
      });
    }
    const exceeded = await exceededPaymentLimit(context, stored.phone);
    if (exceeded) {
      return redirectWithToast(services, "/?step=payment", {
        type: "error",
        title: t("common.errorTitle"),
        description: t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }),
      });
    }
    try {
      return redirect(await createEmpathyCheckout(services, stored, services.publicOrigin()), 303);
    } catch (error) {
      if (!(error instanceof PaymentsError)) throw error;
      return redirectWithToast(services, "/?step=payment", {
        type: "error",
        title: t("payment.failedTitle"),
        description: t("payment.providerError"),
      });
    }
  }

  const submission = parseWithZod(formData, { schema: empathyDetailsSchema(t, services.env.RECORD_CALLS) });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const checked = await checkEmpathyDetails(services, t, submission.value, clientIp(context));
  if (!checked.ok) return data(submission.reply({ fieldErrors: { [checked.field]: [checked.message] } }), { status: 400 });
  await recordFunnelEvent(services.db, "proceed_to_payment", null, languageCode(checked.details.language));
  return redirect("/?step=payment#payment", {
    headers: { "Set-Cookie": await services.cookies.empathyDraft.serialize(checked.details) },
  });
}

export default function Home({ loaderData, actionData }: Route.ComponentProps) {
  return <HomePage loaderData={loaderData} actionData={actionData} />;
}
