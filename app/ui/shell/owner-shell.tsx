import type { ReactNode } from "react";
import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { LanguageSwitcher } from "~/ui/shell/language-switcher";
import { useRootData } from "~/ui/shell/root-data";

export type OwnerSection = "bookings" | "services" | "hours" | "calls" | "phone" | "plan" | "analytics" | "settings";

export interface OwnerShellData {
  businessName: string;
  bookingUrl: string;
}

/**
 * Where "Skip to content" lands in the owner's app: after the business's header and its tabs,
 * which sit inside `<main>` (root.tsx draws it) and would otherwise be tabbed through again.
 */
export const OWNER_CONTENT_ID = "owner-content";

type SectionLabel = `owner.nav.${Exclude<OwnerSection, "analytics" | "plan">}` | "analytics.nav" | "dashboard.plan";

const sections: { id: OwnerSection; to: string; label: SectionLabel }[] = [
  { id: "bookings", to: "/dashboard", label: "owner.nav.bookings" },
  { id: "services", to: "/dashboard/services", label: "owner.nav.services" },
  { id: "hours", to: "/dashboard/hours", label: "owner.nav.hours" },
  { id: "calls", to: "/dashboard/calls", label: "owner.nav.calls" },
  { id: "phone", to: "/dashboard/phone", label: "owner.nav.phone" },
  { id: "plan", to: "/dashboard/plan", label: "dashboard.plan" },
  { id: "analytics", to: "/dashboard/analytics", label: "analytics.nav" },
  { id: "settings", to: "/dashboard/settings", label: "owner.nav.settings" },
];

/**
 * The frame of the business owner's app (routes with `handle = { shell: "owner" }`): the
 * business's name, its own navigation and no marketing chrome. On a phone the sections are a row
 * of tabs that scrolls sideways, so it needs no JavaScript and no menu to open.
 */
export function OwnerShell({
  shell,
  current,
  here = true,
  children,
}: {
  shell: OwnerShellData;
  /**
   * The section this page belongs to; its tab is marked as the current page when `here` is set.
   * "support" marks the header's support link; none for a page of no section (/providers).
   */
  current?: OwnerSection | "support";
  /** False on a page inside a section (a booking's own page): the tab is marked but not "this page". */
  here?: boolean;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const locale = useRootData()?.locale ?? "en";
  return (
    <div className="min-h-full">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto max-w-5xl px-4 pt-3">
          <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2">
            <p className="min-w-0 text-lg font-semibold text-slate-900">
              <bdi>{shell.businessName}</bdi>
              <span className="ms-2 hidden text-sm font-normal text-slate-600 sm:inline">{t("owner.shell.app")}</span>
            </p>
            <div className="flex flex-wrap items-center gap-2">
              <a
                href={shell.bookingUrl}
                className="rounded-md px-2 py-1.5 text-sm font-medium text-teal-800 underline underline-offset-2 hover:bg-teal-50"
              >
                {t("owner.shell.bookingPage")}
              </a>
              <Link
                to="/dashboard/support"
                aria-current={current === "support" ? "page" : undefined}
                className={`rounded-md px-2 py-1.5 text-sm font-medium text-teal-800 underline-offset-2 hover:bg-teal-50 ${
                  current === "support" ? "bg-teal-50 no-underline ring-2 ring-teal-700" : "underline"
                }`}
              >
                {t("support.link")}
              </Link>
              <Form method="post" noValidate action="/logout">
                <AuthenticityTokenInput />
                <button
                  type="submit"
                  className="rounded-md border border-slate-400 bg-white px-2.5 py-1.5 text-sm font-medium text-slate-900 hover:bg-slate-100"
                >
                  {t("auth.logout")}
                </button>
              </Form>
            </div>
          </div>
          <nav aria-label={t("owner.shell.nav")} className="mt-2">
            <ul className="-mx-4 flex gap-1 overflow-x-auto px-4 pb-px">
              {sections.map((section) => {
                const active = section.id === current;
                return (
                  <li key={section.id} className="shrink-0">
                    <Link
                      to={section.to}
                      aria-current={active ? (here ? "page" : "true") : undefined}
                      className={`block border-b-2 px-3 py-2.5 text-sm font-medium whitespace-nowrap hover:text-teal-900 ${
                        active ? "border-teal-700 text-teal-900" : "border-transparent text-slate-700"
                      }`}
                    >
                      {t(section.label)}
                    </Link>
                  </li>
                );
              })}
            </ul>
          </nav>
        </div>
      </header>
      <div id={OWNER_CONTENT_ID} tabIndex={-1} className="mx-auto max-w-5xl px-4 py-6 focus:outline-none sm:py-8">
        {children}
      </div>
      <div className="mx-auto flex max-w-5xl flex-wrap items-center justify-between gap-3 border-t border-slate-200 px-4 py-4 text-sm text-slate-600">
        <span>{t("owner.shell.app")}</span>
        <LanguageSwitcher current={locale} />
      </div>
    </div>
  );
}

/**
 * Where a page of the owner's app confirms what was just done: present from the first render (so
 * a screen reader announces the text when it arrives) and at the top of the content, never over it.
 */
export function OwnerStatus({ message, tone = "success" }: { message: string | null; tone?: "success" | "error" }) {
  return (
    <div role={tone === "error" ? "alert" : "status"} className="empty:hidden">
      {message ? (
        <p
          className={`mb-4 rounded-lg border p-3 text-sm font-medium ${
            tone === "error" ? "border-rose-300 bg-rose-50 text-rose-900" : "border-emerald-300 bg-emerald-50 text-emerald-950"
          }`}
        >
          {message}
        </p>
      ) : null}
    </div>
  );
}
