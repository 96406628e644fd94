import { Link } from "react-router";
import { useTranslation } from "react-i18next";

export function SiteFooter() {
  const { t } = useTranslation();
  const groups = [
    {
      title: t("footer.product"),
      links: [
        ["/how-it-works", t("footer.howItWorks")],
        ["/languages", t("footer.languages")],
        ["/faq", t("footer.faq")],
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
    <footer className="mt-16 border-t border-slate-200 bg-white">
      <nav aria-label={t("footer.navigation")} className="mx-auto grid max-w-6xl gap-8 px-4 py-10 sm:grid-cols-3">
        {groups.map((group) => (
          <div key={group.title}>
            <h2 className="text-sm font-semibold text-slate-900">{group.title}</h2>
            <ul className="mt-3 space-y-2">
              {group.links.map(([to, label]) => (
                <li key={to}>
                  <Link to={to} className="text-sm text-slate-700 hover:text-teal-900 hover:underline">
                    {label}
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
      <div className="mx-auto max-w-6xl space-y-2 border-t border-slate-200 px-4 py-6 text-sm text-slate-600">
        <p>{t("footer.notMedical")}</p>
        <p className="flex flex-wrap justify-between gap-2">
          <span>{t("footer.rights", { year: new Date().getUTCFullYear() })}</span>
          <span lang="en" dir="ltr">
            {t("meta.version")}
          </span>
        </p>
      </div>
    </footer>
  );
}
