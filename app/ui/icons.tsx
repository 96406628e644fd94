/**
 * A few line icons drawn for Sakina (24 × 24, 2 px strokes, currentColor). They are decoration:
 * each is hidden from screen readers, and the text beside it says what it means.
 */
const paths = {
  check: "M5 12.5l4.5 4.5L19 7.5",
  phone: "M6.6 3.5h2.6l1.4 4-2 1.3a11 11 0 005.6 5.6l1.3-2 4 1.4v2.6a2 2 0 01-2.1 2A16.5 16.5 0 014.5 5.6a2 2 0 012.1-2.1z",
  globe: "M12 3a9 9 0 100 18 9 9 0 000-18zM3.5 12h17M12 3c2.5 2.7 3.6 5.7 3.6 9s-1.1 6.3-3.6 9c-2.5-2.7-3.6-5.7-3.6-9S9.5 5.7 12 3z",
  clock: "M12 3a9 9 0 100 18 9 9 0 000-18zM12 7.5V12l3 2",
  calendar: "M4.5 6.5h15v13h-15zM4.5 10.5h15M8.5 4v4M15.5 4v4",
  shield: "M12 3l7.5 3v5.5c0 4.5-3.2 8.2-7.5 9.5-4.3-1.3-7.5-5-7.5-9.5V6z M8.8 12l2.2 2.2 4.2-4.4",
  heart: "M12 19.5s-7.5-4.4-7.5-10A4.2 4.2 0 0112 7a4.2 4.2 0 017.5 2.5c0 5.6-7.5 10-7.5 10z",
  tag: "M3.5 12.2V4.5a1 1 0 011-1h7.7l8.3 8.3-8.7 8.7zM8 8h.01",
  menu: "M4 7h16M4 12h16M4 17h16",
  close: "M6 6l12 12M18 6L6 18",
  mic: "M12 3.5a3 3 0 013 3v5a3 3 0 01-6 0v-5a3 3 0 013-3zM6 11a6 6 0 0012 0M12 17v3.5",
  /** Points to the end of the line (right in English, left in Arabic). */
  forward: "M5 12h14M13 6l6 6-6 6",
  /** Points to the start of the line. */
  back: "M19 12H5M11 6l-6 6 6 6",
} as const;
export type IconName = keyof typeof paths;

export function Icon({ name, className = "size-5" }: { name: IconName; className?: string }) {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      className={`shrink-0 ${name === "forward" || name === "back" ? "rtl:-scale-x-100" : ""} ${className}`}
    >
      <path d={paths[name]} />
    </svg>
  );
}
