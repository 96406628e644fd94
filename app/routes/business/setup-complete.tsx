import { useState } from "react";
import { redirect } from "react-router";
import { Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/setup-complete";
import { CopyButton } from "~/ui/form/copy-button";
import { buttonClass } from "~/ui/form/button";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";
import { FocusHeading } from "~/ui/form/focus";

export function loader({ url, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const params = url.searchParams;
  const fields = ["email", "businessName", "loginEmail", "bookingLink"] as const;
  const values = Object.fromEntries(fields.map((f) => [f, params.get(f)?.trim() ?? ""])) as Record<(typeof fields)[number], string>;
  if (fields.some((f) => !values[f])) throw redirect("/get-started");
  const t = getT(context);
  const origin = services.publicOrigin();
  return { ...values, bookingUrl: `${origin}/book/${encodeURIComponent(values.bookingLink)}`, title: `${t("setup.title")} · Sakina` };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export default function SetupComplete({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  return (
    <div className="mx-auto max-w-xl px-4 py-12 sm:py-16">
      <div className="rounded-2xl border border-emerald-200 bg-emerald-50 p-5 text-emerald-950">
        <FocusHeading level={1} className="text-2xl font-semibold">
          {t("setup.title")}
        </FocusHeading>
        <p className="mt-1">{t("setup.banner", { business: loaderData.businessName })}</p>
      </div>
      <div className="mt-6 space-y-5 rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
        <p className="text-slate-700">{t("setup.credentialsSent", { email: loaderData.email })}</p>
        <p className="rounded-lg bg-amber-50 p-3 text-sm text-amber-900">{t("setup.temporaryPassword")}</p>
        <div>
          <h2 className="text-sm font-medium text-slate-600">{t("setup.loginEmail")}</h2>
          <p className="text-slate-900" dir="ltr">
            {loaderData.loginEmail}
          </p>
        </div>
        <div>
          <h2 id="booking-link-label" className="text-sm font-medium text-slate-600">
            {t("setup.bookingLink")}
          </h2>
          <div className="mt-1 flex flex-wrap items-center gap-2">
            <a href={loaderData.bookingUrl} className="break-all font-medium text-teal-800 underline" dir="ltr">
              {loaderData.bookingUrl}
            </a>
            <CopyButton value={loaderData.bookingUrl} label={t("setup.bookingLink")} onCopied={() => setCopied(true)} />
          </div>
          <p role="status" aria-live="polite" className="mt-1 text-sm text-emerald-800">
            {copied ? `${t("copy.copied")} ${t("copy.copiedBody", { label: t("setup.bookingLink") })}` : ""}
          </p>
        </div>
        <Link to="/login" className={`${buttonClass()} w-full`}>
          {t("setup.goToLogin")}
        </Link>
      </div>
    </div>
  );
}
