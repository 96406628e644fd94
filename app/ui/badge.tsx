import type { ReactNode } from "react";

const tones = {
  neutral: { badge: "bg-slate-100 text-slate-800 ring-slate-300", dot: "bg-slate-500" },
  info: { badge: "bg-teal-50 text-teal-900 ring-teal-200", dot: "bg-teal-600" },
  success: { badge: "bg-emerald-50 text-emerald-900 ring-emerald-200", dot: "bg-emerald-600" },
  warning: { badge: "bg-amber-50 text-amber-900 ring-amber-300", dot: "bg-amber-500" },
  danger: { badge: "bg-rose-50 text-rose-900 ring-rose-200", dot: "bg-rose-600" },
} as const;
export type BadgeTone = keyof typeof tones;

/**
 * A short status word. The colour only repeats what the word says (never the only signal), and
 * the dot is decoration.
 */
export function Badge({ tone = "neutral", children, className = "" }: { tone?: BadgeTone; children: ReactNode; className?: string }) {
  return (
    <span
      className={`inline-flex items-center gap-1.5 rounded-full px-2.5 py-0.5 text-sm font-medium whitespace-nowrap ring-1 ring-inset ${tones[tone].badge} ${className}`}
    >
      <span aria-hidden="true" className={`size-1.5 rounded-full ${tones[tone].dot}`} />
      {children}
    </span>
  );
}
