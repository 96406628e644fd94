import type { ReactNode } from "react";
import { Link } from "react-router";
import { useTranslation } from "react-i18next";

/**
 * The frame of every public content page: title, optional "Last updated" line, the English
 * content (marked lang="en" so screen readers pronounce it right inside an Arabic interface),
 * and the "Back to Home" link.
 */
export function StaticPage({
  title,
  intro,
  lastUpdated,
  children,
}: {
  title: string;
  intro?: ReactNode;
  /** Pass the date to print for legal pages. */
  lastUpdated?: string;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <article className="mx-auto max-w-3xl px-4 py-10 sm:py-14">
      <Link to="/" className="inline-flex items-center gap-1 text-sm font-medium text-teal-800 underline-offset-4 hover:underline">
        <span aria-hidden="true" className="rtl:rotate-180">
          ←
        </span>
        {t("common.backToHome")}
      </Link>
      <div lang="en" dir="ltr">
        <h1 className="mt-6 text-3xl font-semibold tracking-tight text-slate-900 sm:text-4xl">{title}</h1>
        {lastUpdated ? <p className="mt-2 text-sm text-slate-600">Last updated: {lastUpdated}</p> : null}
        {intro ? <div className="mt-4 text-lg text-slate-700">{intro}</div> : null}
        <div className="prose-sakina mt-8 space-y-8">{children}</div>
      </div>
    </article>
  );
}

export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="space-y-3">
      <h2 className="text-xl font-semibold text-slate-900">{title}</h2>
      {children}
    </section>
  );
}

/** Today's date as legal pages print it ("November 22, 2026"). */
export function formatLastUpdated(date: Date = new Date()) {
  return date.toLocaleDateString("en-US", { year: "numeric", month: "long", day: "numeric" });
}
