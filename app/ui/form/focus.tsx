import { useEffect, useRef, type HTMLAttributes, type ReactNode } from "react";

/**
 * Whether the first page of this visit has been shown. What is on the page at load is read from
 * the top by a screen reader; only what arrives later (a step, a page reached by a link or a
 * form) takes the focus.
 */
let firstPageShown = false;
/** Several headings arriving together (a page and its first step): the first in the page wins. */
let claimed = false;

/**
 * Set by app/ui/enhance.js when a step of a page without React leads to a page with it (the home
 * page's payment step): that page arrives as the next step, so its heading takes the focus.
 */
export const ARRIVAL_KEY = "sakina.arrival";

function continuesFlow() {
  try {
    const at = Number(sessionStorage.getItem(ARRIVAL_KEY));
    sessionStorage.removeItem(ARRIVAL_KEY);
    return Date.now() - at < 10_000;
  } catch {
    return false;
  }
}

function useArrivalFocus<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (firstPageShown || (!claimed && continuesFlow())) {
      // An error summary shown with the new content speaks first.
      if (claimed || document.querySelector("[data-error-summary]")) return;
      claimed = true;
      queueMicrotask(() => (claimed = false));
      ref.current?.focus();
      return;
    }
    // After every component of the first page has run its effects.
    const timer = setTimeout(() => (firstPageShown = true));
    return () => clearTimeout(timer);
  }, []);
  return ref;
}

type HeadingProps = HTMLAttributes<HTMLHeadingElement> & {
  level?: 1 | 2 | 3;
  /**
   * This page is the next step of a flow, loaded whole (no JavaScript): the browser gives the
   * heading the focus as it loads (`autofocus`), as the scripts do after a step shown in place.
   * Not for the first page of a visit, which is read from the top.
   */
  arrived?: boolean;
  children: ReactNode;
};

/**
 * A page's h1 or a step's heading. When it appears after a client-side navigation or a step
 * change it takes the focus, so a screen reader announces where the visitor now is instead of
 * leaving the focus on `<body>`. Give it a `key` per step so each step's heading is new.
 */
export function FocusHeading({ level = 2, className = "", arrived = false, children, ...props }: HeadingProps) {
  const ref = useArrivalFocus<HTMLHeadingElement>();
  const Tag = `h${level}` as const;
  return (
    <Tag
      ref={ref}
      tabIndex={-1}
      data-focus-heading=""
      // Only a step the visitor asked for, never a page they landed on (see `arrived`).
      // eslint-disable-next-line jsx-a11y/no-autofocus
      autoFocus={arrived}
      className={`scroll-mt-4 focus:outline-none ${className}`}
      {...props}
    >
      {children}
    </Tag>
  );
}
