import type { ReactNode } from "react";

const widths = {
  /** Long reading: legal and help pages. */
  prose: "max-w-3xl",
  /** Landing pages and overviews. */
  wide: "max-w-6xl",
} as const;

/** The column a public page's content sits in: one width and one rhythm for every page. */
export function PageShell({
  width = "wide",
  className = "",
  children,
}: {
  width?: keyof typeof widths;
  className?: string;
  children: ReactNode;
}) {
  return <div className={`mx-auto w-full px-4 pt-8 pb-14 sm:px-6 sm:pt-12 ${widths[width]} ${className}`}>{children}</div>;
}

/**
 * A page's title block: an optional eyebrow, the page's only h1, an introduction, actions
 * (buttons or links), and an illustration beside it on wide screens (under it on phones).
 */
export function PageHeader({
  eyebrow,
  title,
  intro,
  actions,
  illustration,
  before,
}: {
  eyebrow?: ReactNode;
  title: ReactNode;
  intro?: ReactNode;
  actions?: ReactNode;
  illustration?: ReactNode;
  /** Above the title, such as a "Back to home" link. */
  before?: ReactNode;
}) {
  // As wide as a prose page's column, so English content in an Arabic page lines up with it.
  const text = (
    <div className="w-full max-w-3xl">
      {before ? <div className="mb-6">{before}</div> : null}
      {eyebrow ? <p className="text-sm font-semibold text-teal-800">{eyebrow}</p> : null}
      <h1 className={`${eyebrow ? "mt-2" : ""} text-3xl font-semibold tracking-tight text-ink sm:text-4xl lg:text-5xl`}>{title}</h1>
      {intro ? <div className="mt-4 text-lg text-ink-soft">{intro}</div> : null}
      {actions ? <div className="mt-8 flex flex-wrap gap-3">{actions}</div> : null}
    </div>
  );
  if (!illustration) return <header className="mb-10">{text}</header>;
  return (
    <header className="mb-12 grid items-center gap-8 lg:grid-cols-[3fr_2fr] lg:gap-12">
      {text}
      <div className="mx-auto w-full max-w-64 sm:max-w-sm lg:max-w-none">{illustration}</div>
    </header>
  );
}
