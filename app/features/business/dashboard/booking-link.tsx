import { useState } from "react";
import { useTranslation } from "~/ui/translation";
import { CopyButton } from "~/ui/form/copy-button";

/** The business's public booking link, to open or copy and share. */
export function BookingLink({ url }: { url: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  return (
    <section aria-labelledby="booking-link-title" className="mt-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
      <h2 id="booking-link-title" className="text-lg font-semibold text-slate-900">
        {t("dashboard.bookingLink")}
      </h2>
      <p className="mt-2 flex flex-wrap items-center gap-3">
        <a href={url} dir="ltr" className="font-medium break-all text-teal-800 underline underline-offset-2">
          {url}
        </a>
        <CopyButton value={url} label={t("dashboard.bookingLink")} onCopied={() => setCopied(true)} />
      </p>
      <p role="status" className="mt-1 text-sm text-emerald-800">
        {copied ? `${t("copy.copied")} ${t("copy.copiedBody", { label: t("dashboard.bookingLink") })}` : ""}
      </p>
    </section>
  );
}
