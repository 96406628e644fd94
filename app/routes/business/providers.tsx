import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/providers";
import { Badge, type BadgeTone } from "~/ui/badge";
import { Button, linkClass } from "~/ui/form/button";
import { Card } from "~/ui/card";
import { PageHeader, PageShell } from "~/ui/shell/page-shell";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";
import { providerStatuses } from "~/providers/status.server";
import { getAccount } from "~/features/auth/auth.server";
import { SignedInFrame } from "~/features/business/dashboard/signed-in-frame";
import { accountFrame } from "~/features/business/owner.server";
import { signedInShell, type ShellHandle } from "~/ui/shell/shell";

export const handle: ShellHandle = { shell: signedInShell };

const SETUP_GUIDE = `# Twilio (telephony)
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
APP_URL=https://your-domain.example`;

/**
 * Everyone sees whether each provider is ready, in plain words. How it is configured (variable
 * names, the check's own message, the setup guide) is for the people who run the server: a
 * signed-in owner or admin. The public's loader data never holds those details, since loader
 * data is written into the page for hydration.
 */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const t = getT(context);
  const account = await getAccount(context, request);
  const insider = account?.role === "owner" || account?.role === "admin";
  // A refresh calls the providers' APIs live: only for insiders; others see the cached status.
  const refresh = insider && url.searchParams.has("refresh");
  const status = await providerStatuses(context.get(servicesContext), { refresh });
  const providers = status.providers.map((provider) => ({
    id: provider.id,
    name: provider.name,
    kind: provider.kind,
    configured: provider.configured,
    working: provider.working,
    description: provider.description,
    features: provider.features,
    pricing: provider.pricing,
    details: insider ? { message: provider.message, credentials: provider.credentials, signupUrl: provider.signupUrl } : null,
  }));
  const telephony = status.providers.find((provider) => provider.kind === "telephony" && provider.configured);
  const voice = status.providers.find((provider) => provider.kind === "voice-ai");
  const summary = telephony?.working && voice?.working ? "ready" : telephony ? "trouble" : "notSetUp";
  return {
    title: `${t("providers.title")} · Sakina`,
    frame: insider ? await accountFrame(context, account) : null,
    activeProvider: status.activeProvider,
    summary,
    providers,
    insider: insider ? { recommendation: status.recommendation, guide: SETUP_GUIDE } : null,
  } as const;
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

type ProviderView = Route.ComponentProps["loaderData"]["providers"][number];

export default function Providers({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const status = (p: ProviderView): { label: string; tone: BadgeTone; plain: string } =>
    !p.configured
      ? { label: t("providers.notConfigured"), tone: "neutral", plain: t("look.providers.plainNotConfigured") }
      : p.working
        ? { label: t("providers.working"), tone: "success", plain: t("look.providers.plainWorking") }
        : { label: t("providers.error"), tone: "danger", plain: t("look.providers.plainError") };
  const { insider } = loaderData;
  const content = (
    <>
      <PageHeader
        title={t("providers.title")}
        intro={<p>{t("look.providers.intro")}</p>}
        actions={
          insider ? (
            <Form method="get">
              <input type="hidden" name="refresh" value="1" />
              <Button type="submit" variant="secondary">
                {t("providers.refresh")}
              </Button>
            </Form>
          ) : null
        }
      />
      <div className="space-y-6">
        <Card as="section" aria-labelledby="current-title">
          <h2 id="current-title" className="text-sm font-medium text-ink-muted">
            {t("providers.current")}
          </h2>
          <p className="mt-1 text-xl font-semibold text-ink">
            {loaderData.activeProvider ? <bdi>{loaderData.activeProvider}</bdi> : t("providers.none")}
          </p>
          <p className="mt-1 text-ink-soft">{t(`look.providers.summary_${loaderData.summary}`)}</p>
          {insider ? (
            <p className="mt-2 text-sm text-ink-soft" lang="en" dir="ltr">
              {insider.recommendation}
            </p>
          ) : null}
        </Card>

        <ul className="grid gap-4 md:grid-cols-2">
          {loaderData.providers.map((provider) => {
            const s = status(provider);
            return (
              <Card as="li" key={provider.id} className="flex flex-col gap-3">
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <h2 className="text-lg font-semibold text-ink">
                    <bdi>{provider.name}</bdi>
                  </h2>
                  <Badge tone={s.tone}>{s.label}</Badge>
                </div>
                <p className="text-ink-soft">{s.plain}</p>
                <div lang="en" dir="ltr" className="space-y-2 text-sm text-ink-soft">
                  <p>{provider.description}</p>
                  <ul className="list-disc ps-5">
                    {provider.features.map((feature) => (
                      <li key={feature}>{feature}</li>
                    ))}
                  </ul>
                  <p>{provider.pricing}</p>
                </div>
                {provider.details ? (
                  <div className="mt-auto space-y-2 border-t border-sand-200 pt-3 text-sm text-ink-soft">
                    <p>
                      <span className="font-medium text-ink">{t("look.providers.lastCheck")}: </span>
                      <span lang="en" dir="ltr">
                        {provider.details.message}
                      </span>
                    </p>
                    <p className="font-medium text-ink">{t("providers.credentials")}:</p>
                    <ul className="flex flex-wrap gap-1.5" dir="ltr">
                      {provider.details.credentials.map((name) => (
                        <li key={name}>
                          <code className="rounded bg-sand-100 px-1.5 py-0.5 text-xs whitespace-nowrap text-ink">{name}</code>
                        </li>
                      ))}
                    </ul>
                    <a href={provider.details.signupUrl} className={linkClass} rel="noreferrer">
                      {t("providers.getCredentials")}
                      <span className="sr-only">: {provider.name}</span>
                    </a>
                  </div>
                ) : null}
              </Card>
            );
          })}
        </ul>

        {insider ? (
          <Card as="section" aria-labelledby="guide-title">
            <h2 id="guide-title" className="text-lg font-semibold text-ink">
              {t("providers.guide")}
            </h2>
            {/* Long lines wrap instead of scrolling sideways: a scrolling block would need keyboard focus to be read. */}
            <pre className="mt-3 rounded-lg bg-slate-900 p-4 text-sm break-words whitespace-pre-wrap text-slate-100" dir="ltr">
              {insider.guide}
            </pre>
          </Card>
        ) : (
          <p className="text-sm text-ink-muted">
            {t("look.providers.ownersHint")}{" "}
            <Link to="/login?redirectTo=%2Fproviders" className={linkClass}>
              {t("nav.login")}
            </Link>
          </p>
        )}
      </div>
    </>
  );
  // A signed-in owner or admin sees the page in their own frame, which sets the column already.
  return loaderData.frame ? (
    <SignedInFrame frame={loaderData.frame}>{content}</SignedInFrame>
  ) : (
    <PageShell width="wide" className="max-w-5xl">
      {content}
    </PageShell>
  );
}
