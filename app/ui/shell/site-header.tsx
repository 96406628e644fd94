import { useEffect, useRef } from "react";
import { useLocation } from "react-router";
import { Link, NavLink } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import { Icon } from "~/ui/icons";
import { LanguageSwitcher } from "~/ui/shell/language-switcher";
import { LogoMark } from "~/ui/shell/logo";

/**
 * The public site's header. Wide screens show the whole navigation in one row; phones get a
 * "Menu" disclosure built on <details>, so it opens and closes without JavaScript. With
 * JavaScript it also closes on Escape and after a navigation.
 */
export function SiteHeader({ locale }: { locale: string }) {
  const { t } = useTranslation();
  const menu = useRef<HTMLDetailsElement>(null);
  const location = useLocation();
  // Closes after a navigation, not at hydration: a visitor on a slow line may have opened the
  // menu before the script arrived, and it must stay open under their finger.
  const shownAt = useRef(`${location.pathname}${location.search}`);
  useEffect(() => {
    const at = `${location.pathname}${location.search}`;
    if (at === shownAt.current) return;
    shownAt.current = at;
    if (menu.current) menu.current.open = false;
  }, [location.pathname, location.search]);
  useEffect(() => {
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || !menu.current?.open) return;
      menu.current.open = false;
      menu.current.querySelector("summary")?.focus();
    };
    document.addEventListener("keydown", closeOnEscape);
    return () => document.removeEventListener("keydown", closeOnEscape);
  }, []);

  const links = [
    ["/business", t("nav.forBusiness")],
    ["/how-it-works", t("nav.howItWorks")],
    ["/languages", t("nav.languages")],
    ["/faq", t("nav.faq")],
    ["/contact", t("nav.contact")],
  ] as const;
  const wideLink = ({ isActive }: { isActive: boolean }) =>
    `rounded-lg px-3 py-2 text-sm font-medium whitespace-nowrap hover:bg-teal-50 hover:text-teal-900 ${
      isActive ? "bg-teal-50 text-teal-900" : "text-ink-soft"
    }`;
  const menuLink = ({ isActive }: { isActive: boolean }) =>
    `flex min-h-12 items-center rounded-lg px-3 text-base font-medium hover:bg-teal-50 ${
      isActive ? "bg-teal-50 text-teal-900" : "text-ink"
    }`;

  return (
    <header className="relative z-30 border-b border-sand-200 bg-white">
      <div className="mx-auto flex max-w-6xl items-center justify-between gap-4 px-4 py-3 sm:px-6">
        <Link to="/" className="flex shrink-0 items-center gap-2 rounded-lg">
          <LogoMark />
          <span className="text-xl font-semibold tracking-tight text-ink">{t("meta.appName")}</span>
        </Link>

        <nav aria-label={t("nav.main")} className="hidden lg:block">
          <ul className="flex items-center gap-1">
            {links.map(([to, label]) => (
              <li key={to}>
                <NavLink to={to} className={wideLink}>
                  {label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="hidden items-center gap-3 lg:flex">
          <LanguageSwitcher current={locale} />
          <Link to="/login" className="rounded-lg px-3 py-2 text-sm font-semibold whitespace-nowrap text-teal-800 hover:bg-teal-50">
            {t("nav.login")}
          </Link>
        </div>

        <details ref={menu} data-menu="" className="group lg:hidden">
          <summary className="flex min-h-11 cursor-pointer list-none items-center gap-2 rounded-xl border border-sand-300 px-4 font-semibold text-teal-900 hover:bg-teal-50 [&::-webkit-details-marker]:hidden">
            <Icon name="menu" className="size-5 group-open:hidden" />
            <Icon name="close" className="hidden size-5 group-open:block" />
            {t("look.header.menu")}
          </summary>
          <div className="absolute inset-x-0 top-full border-b border-sand-200 bg-white px-4 pt-3 pb-5 shadow-card sm:px-6">
            <nav aria-label={t("nav.main")}>
              <ul className="grid gap-1 sm:grid-cols-2">
                {[...links, ["/login", t("nav.login")] as const].map(([to, label]) => (
                  <li key={to}>
                    <NavLink to={to} className={menuLink}>
                      {label}
                    </NavLink>
                  </li>
                ))}
              </ul>
            </nav>
            <div className="mt-4 border-t border-sand-200 pt-4">
              <LanguageSwitcher current={locale} id="language-switcher-menu" />
            </div>
          </div>
        </details>
      </div>
    </header>
  );
}
