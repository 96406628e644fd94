import type { HTMLAttributes, ReactNode } from "react";

const tones = {
  plain: "border-sand-200 bg-white",
  brand: "border-teal-200 bg-teal-50",
  warm: "border-apricot-200 bg-apricot-100",
  muted: "border-sand-200 bg-sand-50",
} as const;
export type CardTone = keyof typeof tones;

/** The surface of a card, for elements that are not a plain `<div>` (`<li className={cardClass()}>`). */
export const cardClass = (tone: CardTone = "plain") => `rounded-card border p-5 shadow-card sm:p-6 ${tones[tone]}`;

/**
 * A bordered, rounded surface that groups one thing. Give it `as="section"` with
 * `aria-labelledby` when it has a heading that names a region of the page.
 */
export function Card({
  as: Tag = "div",
  tone = "plain",
  className = "",
  children,
  ...props
}: HTMLAttributes<HTMLElement> & { as?: "div" | "section" | "article" | "li" | "aside"; tone?: CardTone; children: ReactNode }) {
  return (
    <Tag {...props} className={`${cardClass(tone)} ${className}`}>
      {children}
    </Tag>
  );
}
