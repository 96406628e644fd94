import { Link, NavLink } from "react-router";
import { useTranslation } from "react-i18next";
import { LanguageSwitcher } from "~/ui/language-switcher";

export function SiteHeader({ locale }: { locale: string }) {
  const { t } = useTranslation();
  const navClass = ({ isActive }: { isActive: boolean }) =>
    `rounded-md px-2 py-1 text-sm font-medium hover:bg-teal-50 hover:text-teal-900 ${
      isActive ? "text-teal-900 underline" : "text-slate-700"
    }`;
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-3 px-4 py-3">
        <Link to="/" className="flex items-center gap-2 rounded-md">
          <Logo />
          <span className="text-xl font-semibold tracking-tight text-slate-900">{t("meta.appName")}</span>
        </Link>
        <nav aria-label={t("nav.main")} className="order-last w-full sm:order-none sm:w-auto">
          <ul className="flex flex-wrap gap-1">
            <li>
              <NavLink to="/business" className={navClass}>
                {t("nav.forBusiness")}
              </NavLink>
            </li>
            <li>
              <NavLink to="/how-it-works" className={navClass}>
                {t("nav.howItWorks")}
              </NavLink>
            </li>
            <li>
              <NavLink to="/languages" className={navClass}>
                {t("nav.languages")}
              </NavLink>
            </li>
            <li>
              <NavLink to="/faq" className={navClass}>
                {t("nav.faq")}
              </NavLink>
            </li>
            <li>
              <NavLink to="/contact" className={navClass}>
                {t("nav.contact")}
              </NavLink>
            </li>
          </ul>
        </nav>
        <LanguageSwitcher current={locale} />
      </div>
    </header>
  );
}

function Logo() {
  return (
    <svg aria-hidden="true" viewBox="0 0 32 32" className="h-8 w-8">
      <circle cx="16" cy="16" r="15" className="fill-teal-700" />
      <path
        d="M9 17c2.5 3.5 11.5 3.5 14 0M11 12.5h.01M21 12.5h.01"
        className="stroke-white"
        strokeWidth="2.5"
        strokeLinecap="round"
        fill="none"
      />
    </svg>
  );
}
