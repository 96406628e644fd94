import type { ButtonHTMLAttributes } from "react";

const variants = {
  primary: "bg-teal-700 text-white shadow-sm hover:bg-teal-800 active:bg-teal-900 disabled:bg-slate-400 disabled:shadow-none",
  secondary:
    "border border-sand-300 bg-white text-teal-900 shadow-sm hover:border-teal-700 hover:bg-teal-50 disabled:border-slate-300 disabled:bg-white disabled:text-slate-500",
  quiet: "text-teal-800 hover:bg-teal-50 hover:text-teal-900 disabled:text-slate-500",
  danger: "bg-rose-700 text-white shadow-sm hover:bg-rose-800 disabled:bg-slate-400",
} as const;
export type ButtonVariant = keyof typeof variants;

/** The look of a button, for `<button>`s and for links that act as buttons (`<Link className={buttonClass()}>`). */
export const buttonClass = (variant: ButtonVariant = "primary") =>
  `inline-flex min-h-11 items-center justify-center gap-2 rounded-xl px-5 py-2.5 text-base font-semibold no-underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-700 disabled:cursor-not-allowed ${variants[variant]}`;

export function Button({
  variant = "primary",
  className = "",
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: ButtonVariant }) {
  return <button {...props} className={`${buttonClass(variant)} ${className}`} />;
}

/** Inline text links inside content. */
export const linkClass =
  "font-medium text-teal-800 underline underline-offset-2 hover:text-teal-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-700";
