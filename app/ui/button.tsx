import type { ButtonHTMLAttributes } from "react";

const variants = {
  primary: "bg-teal-700 text-white hover:bg-teal-800 disabled:bg-slate-400",
  secondary: "border border-slate-400 bg-white text-slate-900 hover:bg-slate-100 disabled:text-slate-500",
} as const;

export const buttonClass = (variant: keyof typeof variants = "primary") =>
  `inline-flex items-center justify-center gap-2 rounded-lg px-4 py-2.5 text-base font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-700 disabled:cursor-not-allowed ${variants[variant]}`;

export function Button({
  variant = "primary",
  className = "",
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: keyof typeof variants }) {
  return <button {...props} className={`${buttonClass(variant)} ${className}`} />;
}

/** Inline text links inside content. */
export const linkClass =
  "font-medium text-teal-800 underline underline-offset-2 hover:text-teal-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-700";
