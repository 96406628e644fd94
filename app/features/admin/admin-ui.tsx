import type { ReactNode } from "react";
import { useLocation } from "react-router";
import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { LanguageSwitcher } from "~/ui/shell/language-switcher";
import { OWNER_CONTENT_ID } from "~/ui/shell/owner-shell";
import { useRootData } from "~/ui/shell/root-data";
import { Pager as SharedPager } from "~/ui/pager";

/** Rows per page in every admin table. */
export const PAGE_SIZE = 25;

/** The admin area's sections, in the navigation's order. */
export const ADMIN_SECTIONS = [
  { id: "overview", to: "/admin" },
  { id: "businesses", to: "/admin/businesses" },
  { id: "consumers", to: "/admin/consumers" },
  { id: "calls", to: "/admin/calls" },
  { id: "quality", to: "/admin/quality" },
  { id: "reviews", to: "/admin/reviews" },
  { id: "payments", to: "/admin/payments" },
  { id: "refusals", to: "/admin/refusals" },
  { id: "health", to: "/admin/health" },
  { id: "jobs", to: "/admin/jobs" },
  { id: "support", to: "/admin/support" },
  { id: "funnel", to: "/admin/funnel" },
  { id: "audit", to: "/admin/audit" },
] as const;

export type AdminSection = (typeof ADMIN_SECTIONS)[number]["id"];

/**
 * The admin area's frame: who is signed in, the sections (a row of links that wraps, no menu to
 * open, so it works without JavaScript), and the page. Draws the content target "Skip to
 * content" jumps to, as the owner's app does.
 */
export function AdminShell({ email, nav = true, children }: { email: string; nav?: boolean; children: ReactNode }) {
  const { t } = useTranslation();
  const locale = useRootData()?.locale ?? "en";
  const { pathname } = useLocation();
  return (
    <div className="min-h-full">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto max-w-6xl px-4 pt-3">
          <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2">
            <p className="text-lg font-semibold text-slate-900">
              {t("admin.shell.title")}
              <span className="ms-2 text-sm font-normal text-slate-600">
                <bdi>{email}</bdi>
              </span>
            </p>
            <Form method="post" noValidate action="/logout">
              <AuthenticityTokenInput />
              <button
                type="submit"
                className="rounded-md border border-slate-400 bg-white px-2.5 py-1.5 text-sm font-medium text-slate-900 hover:bg-slate-100"
              >
                {t("admin.signOut")}
              </button>
            </Form>
          </div>
          {nav ? (
            <nav aria-label={t("admin.shell.nav")} className="mt-2">
              <ul className="flex flex-wrap gap-1 pb-px">
                {ADMIN_SECTIONS.map((section) => {
                  const active = section.to === "/admin" ? pathname === "/admin" : pathname.startsWith(section.to);
                  return (
                    <li key={section.id}>
                      <Link
                        to={section.to}
                        aria-current={active ? "page" : undefined}
                        className={`block border-b-2 px-3 py-2 text-sm font-medium whitespace-nowrap hover:text-teal-900 ${
                          active ? "border-teal-700 text-teal-900" : "border-transparent text-slate-700"
                        }`}
                      >
                        {t(`admin.nav.${section.id}`)}
                      </Link>
                    </li>
                  );
                })}
              </ul>
            </nav>
          ) : (
            <div className="h-3" />
          )}
        </div>
      </header>
      <div id={OWNER_CONTENT_ID} tabIndex={-1} className="mx-auto max-w-6xl px-4 py-6 focus:outline-none sm:py-8">
        {children}
      </div>
      <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-end gap-3 border-t border-slate-200 px-4 py-4 text-sm text-slate-600">
        <LanguageSwitcher current={locale} />
      </div>
    </div>
  );
}

export function AdminHeading({ children, intro }: { children: ReactNode; intro?: ReactNode }) {
  return (
    <div className="mb-5">
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">{children}</h1>
      {intro ? <p className="mt-1 text-slate-700">{intro}</p> : null}
    </div>
  );
}

/** Previous and next page (ui/pager.tsx), at the admin tables' page size. */
export const Pager = (props: { page: number; total: number }) => <SharedPager {...props} pageSize={PAGE_SIZE} />;

/** Shown in place of a table with no rows. */
export function Empty({ children }: { children: ReactNode }) {
  return <p className="rounded-2xl border border-dashed border-slate-300 bg-white p-6 text-slate-700">{children}</p>;
}

/**
 * One admin action on one row: a small POST form (CSRF token, the row's id, the intent), so it
 * works without JavaScript. `label` names the row for screen readers ("Suspend Demo Salon").
 */
export function RowAction({
  intent,
  id,
  children,
  label,
  tone = "secondary",
}: {
  intent: string;
  id: number;
  children: ReactNode;
  label: string;
  tone?: "secondary" | "danger";
}) {
  const look =
    tone === "danger"
      ? "border-rose-700 text-rose-800 hover:bg-rose-50"
      : "border-slate-400 text-teal-900 hover:border-teal-700 hover:bg-teal-50";
  return (
    <Form method="post" noValidate>
      <AuthenticityTokenInput />
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="id" value={id} />
      <button
        type="submit"
        aria-label={label}
        className={`min-h-11 rounded-lg border bg-white px-3 py-1.5 text-sm font-semibold focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-700 ${look}`}
      >
        {children}
      </button>
    </Form>
  );
}
