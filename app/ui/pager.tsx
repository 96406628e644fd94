import type { TFunction } from "i18next";
import { useLocation } from "react-router";
import { Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";

/** The page a list is asked for (`?page=N`): 1 when missing or nonsense, at most 100,000. */
export function pageOf(url: URL) {
  const raw = Number(url.searchParams.get("page"));
  return Number.isInteger(raw) && raw >= 1 ? Math.min(raw, 100_000) : 1;
}

/** A long list's page title: its name, and the page after the first ("Bookings: Upcoming, page 2"), which a screen reader announces on arrival. */
export const pagedTitle = (t: TFunction, name: string, page: number) => (page > 1 ? t("pager.titled", { name, page }) : name);

/** How many pages `total` rows make at `pageSize` a page (one, when there are none). */
export const pageCount = (total: number, pageSize: number) => Math.max(1, Math.ceil(total / pageSize));

/**
 * Where the reader is in a long list, and the previous and next pages as plain links (`?page=N`,
 * the rest of the query kept but `drop`: what said how the last action went), so paging works
 * without JavaScript.
 */
export function Pager({
  page,
  total,
  pageSize,
  label,
  drop = [],
}: {
  page: number;
  total: number;
  pageSize: number;
  label?: string;
  drop?: string[];
}) {
  const { t } = useTranslation();
  const pages = pageCount(total, pageSize);
  const { pathname, search } = useLocation();
  const hrefFor = (n: number) => {
    const params = new URLSearchParams(search);
    for (const name of drop) params.delete(name);
    if (n === 1) params.delete("page");
    else params.set("page", String(n));
    const query = params.toString();
    return query ? `${pathname}?${query}` : pathname;
  };
  const linkClass = "rounded-md border border-slate-300 px-3 py-1.5 font-medium text-teal-900 hover:bg-teal-50";
  return (
    <nav aria-label={label ?? t("pager.label")} className="mt-4 flex flex-wrap items-center gap-3 text-sm text-slate-700">
      <span>{t("pager.position", { page: Math.min(page, pages), pages, total })}</span>
      {page > 1 ? (
        <Link to={hrefFor(page - 1)} className={linkClass}>
          {t("pager.previous")}
        </Link>
      ) : null}
      {page < pages ? (
        <Link to={hrefFor(page + 1)} className={linkClass}>
          {t("pager.next")}
        </Link>
      ) : null}
    </nav>
  );
}
