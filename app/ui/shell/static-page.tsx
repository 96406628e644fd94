import type { ReactNode } from "react";
import { Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import { Disclaimer } from "~/ui/disclaimer";
import { Icon } from "~/ui/icons";
import { PageHeader, PageShell } from "~/ui/shell/page-shell";

/**
 * The frame of every public content page: the "Back to home" link, title, optional "Last
 * updated" line, and the English content (marked lang="en" so screen readers pronounce it right
 * inside an Arabic interface) on a reading surface. Pages about the emotional-support call pass
 * `empathy` to show the "not medical advice" disclaimer in the interface's language.
 */
export function StaticPage({
  title,
  intro,
  lastUpdated,
  empathy = false,
  illustration,
  children,
}: {
  title: string;
  intro?: ReactNode;
  /** Pass the date to print for legal pages. */
  lastUpdated?: string;
  empathy?: boolean;
  illustration?: ReactNode;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <PageShell width={illustration ? "wide" : "prose"} className={illustration ? "max-w-5xl" : ""}>
      <article>
        <PageHeader
          before={
            <Link to="/" className="inline-flex items-center gap-1.5 text-sm font-medium text-teal-800 underline-offset-4 hover:underline">
              <Icon name="back" className="size-4" />
              {t("common.backToHome")}
            </Link>
          }
          title={
            <span lang="en" dir="ltr" className="block">
              {title}
            </span>
          }
          intro={
            lastUpdated || intro ? (
              <div lang="en" dir="ltr" className="space-y-4">
                {lastUpdated ? <p className="text-sm text-ink-muted">Last updated: {lastUpdated}</p> : null}
                {intro}
              </div>
            ) : undefined
          }
          illustration={illustration}
        />
        {empathy ? <Disclaimer className="mb-8" /> : null}
        <div lang="en" dir="ltr" className="prose-sakina max-w-3xl space-y-10">
          {children}
        </div>
      </article>
    </PageShell>
  );
}

export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="space-y-3">
      <h2 className="text-xl font-semibold text-ink sm:text-2xl">{title}</h2>
      {children}
    </section>
  );
}

/** Today's date as legal pages print it ("November 22, 2026"). */
export function formatLastUpdated(date: Date = new Date()) {
  return date.toLocaleDateString("en-US", { year: "numeric", month: "long", day: "numeric" });
}
