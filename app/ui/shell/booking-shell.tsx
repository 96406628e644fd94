import type { ReactNode } from "react";
import { Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import { Ltr } from "~/ui/bidi";
import { LanguageSwitcher } from "~/ui/shell/language-switcher";

export interface BookingShellBusiness {
  name: string;
  /** As stored: an industry id ("beauty") shown with its translated name. */
  industry?: string | null;
  /** Formatted for people, "+1 212 555 0100". */
  phone?: string | null;
  address?: string | null;
  description?: string | null;
}

/**
 * A business's own pages (its booking page, a customer's booking): the business first, with its
 * name, kind, phone and address; Sakina only as a small "Powered by Sakina" with the legal links
 * at the bottom. No Sakina navigation, disclaimers or version: the page speaks for the business.
 */
export function BookingShell({
  business,
  locale,
  wide = false,
  children,
}: {
  business: BookingShellBusiness | null;
  locale: string;
  /** The page's content is wider on a wide screen (the month beside the times): so are the header and footer, aligned with it. */
  wide?: boolean;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const width = wide ? "max-w-3xl lg:max-w-5xl" : "max-w-3xl";
  return (
    <div className="flex min-h-full flex-col">
      <div className="border-b border-slate-200 bg-white">
        {/* On a phone the language switcher sits above the business, which then has the full width. */}
        <div
          className={`mx-auto flex ${width} flex-col-reverse gap-3 px-4 py-4 sm:flex-row sm:items-start sm:justify-between sm:gap-4 sm:py-6`}
        >
          {business ? (
            <div className="min-w-0 flex-1">
              {business.industry ? (
                <p className="text-sm font-medium text-teal-800">{t(`industry.${business.industry}`, { defaultValue: "" })}</p>
              ) : null}
              <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">
                <bdi>{business.name}</bdi>
              </h1>
              <p className="mt-1 flex flex-wrap gap-x-3 gap-y-1 text-slate-700">
                {business.phone ? (
                  <a
                    href={`tel:${business.phone.replace(/[^\d+]/g, "")}`}
                    className="font-medium text-teal-800 underline underline-offset-2"
                  >
                    <span className="sr-only">{t("flows.businessPhone")} </span>
                    <Ltr>{business.phone}</Ltr>
                  </a>
                ) : null}
                {business.address ? (
                  <span>
                    <span className="sr-only">{t("flows.businessAddress")} </span>
                    <bdi>{business.address}</bdi>
                  </span>
                ) : null}
              </p>
              {business.description ? (
                <p dir="auto" className="mt-2 max-w-prose text-slate-700">
                  {business.description}
                </p>
              ) : null}
            </div>
          ) : (
            <div className="flex-1" />
          )}
          <div className="flex justify-end">
            <LanguageSwitcher current={locale} />
          </div>
        </div>
      </div>
      <div className="flex-1">{children}</div>
      <footer className="mt-12 border-t border-slate-200">
        <div className={`mx-auto flex ${width} flex-wrap items-center justify-between gap-x-6 gap-y-2 px-4 py-5 text-sm text-slate-600`}>
          <p>
            <Link to="/" className="hover:text-teal-900 hover:underline">
              {t("flows.poweredBy")}
            </Link>
          </p>
          <nav aria-label={t("footer.legal")}>
            <ul className="flex flex-wrap gap-x-4 gap-y-1">
              <li>
                <Link to="/privacy" className="hover:text-teal-900 hover:underline">
                  {t("footer.privacy")}
                </Link>
              </li>
              <li>
                <Link to="/terms" className="hover:text-teal-900 hover:underline">
                  {t("footer.terms")}
                </Link>
              </li>
            </ul>
          </nav>
        </div>
      </footer>
    </div>
  );
}
