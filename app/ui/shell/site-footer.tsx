import { Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import { LogoMark } from "~/ui/shell/logo";

/**
 * The public site's footer: where to go next, the legal pages, and the small print. The
 * "not medical advice" disclaimer is not here: it belongs to the emotional-support pages, which
 * show it themselves (see `Disclaimer`).
 */
export function SiteFooter() {
  const { t } = useTranslation();
  const groups = [
    {
      title: t("footer.product"),
      links: [
        ["/how-it-works", t("footer.howItWorks")],
        ["/languages", t("footer.languages")],
        ["/faq", t("footer.faq")],
        ["/subscribe", t("footer.subscribe")],
        ["/business", t("footer.business")],
      ],
    },
    {
      title: t("footer.support"),
      links: [
        ["/safety", t("footer.safety")],
        ["/contact", t("footer.contact")],
        ["/accessibility", t("footer.accessibility")],
      ],
    },
    {
      title: t("footer.legal"),
      links: [
        ["/privacy", t("footer.privacy")],
        ["/terms", t("footer.terms")],
        ["/cookies", t("footer.cookies")],
      ],
    },
  ] as const;
  return (
    <footer className="mt-16 border-t border-sand-200 bg-white">
      <div className="mx-auto grid max-w-6xl gap-10 px-4 py-12 sm:px-6 lg:grid-cols-[2fr_3fr]">
        <div className="max-w-xs">
          <p className="flex items-center gap-2 text-lg font-semibold text-ink">
            <LogoMark className="size-7" />
            {t("meta.appName")}
          </p>
          <p className="mt-3 text-sm text-ink-muted">{t("meta.tagline")}</p>
        </div>
        <nav aria-label={t("footer.navigation")} className="grid grid-cols-2 gap-8 sm:grid-cols-3">
          {groups.map((group) => (
            <div key={group.title}>
              <h2 className="text-sm font-semibold text-ink">{group.title}</h2>
              <ul className="mt-3 space-y-1">
                {group.links.map(([to, label]) => (
                  <li key={to}>
                    <Link to={to} className="inline-block py-1 text-sm text-ink-soft hover:text-teal-900 hover:underline">
                      {label}
                    </Link>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </nav>
      </div>
      <div className="border-t border-sand-200">
        <p className="mx-auto flex max-w-6xl flex-wrap justify-between gap-2 px-4 py-5 text-xs text-ink-muted sm:px-6">
          <span>{t("footer.rights", { year: new Date().getUTCFullYear() })}</span>
          <span>{t("meta.about")}</span>
        </p>
      </div>
    </footer>
  );
}
