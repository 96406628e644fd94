import { Form } from "react-router";
import { useTranslation } from "react-i18next";
import type { Route } from "./+types/providers";
import { Button, linkClass } from "~/ui/button";
import { servicesContext } from "~/platform/context";
import { getI18n } from "~/platform/i18n.server";
import { providerStatuses } from "~/providers/status.server";
import { getAccount } from "~/features/auth/auth.server";

export async function loader({ request, context }: Route.LoaderArgs) {
  const { t } = getI18n(context);
  // A refresh calls the providers' APIs live: only for a signed-in owner or admin; others see the cached status.
  const asked = new URL(request.url).searchParams.has("refresh");
  const account = asked ? await getAccount(context, request) : null;
  const refresh = asked && (account?.role === "owner" || account?.role === "admin");
  return { title: `${t("providers.title")} · Sakina`, ...(await providerStatuses(context.get(servicesContext), { refresh })) };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export default function Providers({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const badge = (p: { configured: boolean; working: boolean }) =>
    !p.configured
      ? { label: t("providers.notConfigured"), tone: "bg-slate-200 text-slate-800" }
      : p.working
        ? { label: t("providers.working"), tone: "bg-emerald-100 text-emerald-900" }
        : { label: t("providers.error"), tone: "bg-rose-100 text-rose-900" };
  return (
    <div className="mx-auto max-w-5xl space-y-6 px-4 py-10">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-3xl font-semibold tracking-tight text-slate-900">{t("providers.title")}</h1>
        <Form method="get">
          <input type="hidden" name="refresh" value="1" />
          <Button type="submit" variant="secondary">
            {t("providers.refresh")}
          </Button>
        </Form>
      </div>
      <section aria-labelledby="current-title" className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
        <h2 id="current-title" className="text-sm font-medium text-slate-600">
          {t("providers.current")}
        </h2>
        <p className="mt-1 text-xl font-semibold text-slate-900">{loaderData.activeProvider ?? t("providers.none")}</p>
        <p className="mt-1 text-slate-700" lang="en" dir="ltr">
          {loaderData.recommendation}
        </p>
      </section>
      <ul className="grid gap-4 md:grid-cols-2">
        {loaderData.providers.map((provider) => {
          const b = badge(provider);
          return (
            <li key={provider.id} className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
              <div className="flex items-center justify-between gap-2">
                <h2 className="text-lg font-semibold text-slate-900">{provider.name}</h2>
                <span className={`rounded-full px-2.5 py-0.5 text-sm font-medium ${b.tone}`}>{b.label}</span>
              </div>
              <div lang="en" dir="ltr" className="mt-2 space-y-2 text-sm text-slate-700">
                <p>{provider.message}</p>
                <p>{provider.description}</p>
                <ul className="list-disc ps-5">
                  {provider.features.map((feature) => (
                    <li key={feature}>{feature}</li>
                  ))}
                </ul>
                <p>{provider.pricing}</p>
                <p>
                  {t("providers.credentials")}: <code className="break-all">{provider.credentials.join(", ")}</code>
                </p>
                <a href={provider.signupUrl} className={linkClass} rel="noreferrer">
                  {t("providers.getCredentials")}
                  <span className="sr-only">: {provider.name}</span>
                </a>
              </div>
            </li>
          );
        })}
      </ul>
      <section aria-labelledby="guide-title" className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
        <h2 id="guide-title" className="text-lg font-semibold text-slate-900">
          {t("providers.guide")}
        </h2>
        <pre className="mt-3 overflow-x-auto rounded-lg bg-slate-900 p-4 text-sm text-slate-100" dir="ltr">
          {`# Twilio (telephony)
TWILIO_ACCOUNT_SID=AC...
TWILIO_AUTH_TOKEN=...
TWILIO_FROM_NUMBER=+15551234567
# optional caller IDs for Saudi Arabia and the UAE
TWILIO_FROM_NUMBER_SA=+9665...
TWILIO_FROM_NUMBER_AE=+9715...
# OpenAI Realtime (voice AI)
OPENAI_API_KEY=sk-...
# Vonage (not supported yet)
VONAGE_API_KEY=... VONAGE_API_SECRET=...
# Public address Twilio calls back (https)
APP_URL=https://your-domain.example`}
        </pre>
      </section>
    </div>
  );
}
