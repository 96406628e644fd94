import type { ParseKeys, TFunction } from "i18next";
import { Fragment, isValidElement, type ReactElement, type ReactNode } from "react";
import { formatMoney } from "~/lib/money";

/**
 * Right-to-left pages reorder the groups of a number that contains spaces, dashes or a sign:
 * "+1 212 555 0100" comes out as "0100 555 212 1+". Numbers, codes and phone numbers are therefore
 * always shown inside an isolate that reads left to right.
 */
export function Ltr({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <bdi dir="ltr" className={className}>
      {children}
    </bdi>
  );
}

/**
 * A run that must not be reordered: an optional sign or currency, digits with their group
 * separators ("116 123", "+966 55 123 4567", "$5.00", "30–60", "09:00"), and a trailing currency.
 */
const NUMBER_RUN = /([+$€£]?\d(?:[\d\u00a0\u202f .,:\-–/]*\d)?(?:[\u00a0\u202f ]?(?:US\$|\$|€|£))?)/;

/**
 * A translated sentence with every number in it isolated: "اتصل بـ 116 123" keeps its number
 * in reading order. Use it for texts that carry phone numbers, prices or codes.
 */
export function isolateNumbers(text: string): ReactNode {
  const parts = numberParts(text);
  // One inline box: in a flex container (a button, a list item with an icon) the parts would
  // otherwise be flex items, the gap added to the spaces ("Start for  $1").
  return typeof parts === "string" ? parts : <span>{parts}</span>;
}

/** The text with each number in an isolate, as parts (the text itself when it has no number). */
function numberParts(text: string): string | ReactNode[] {
  const parts = text.split(NUMBER_RUN);
  if (parts.length === 1) return text;
  return parts.map((part, index) =>
    index % 2 === 1 ? <Ltr key={index}>{part}</Ltr> : part ? <Fragment key={index}>{part}</Fragment> : null,
  );
}

/**
 * An amount formatted with `Intl` for the page's language, read left to right: inside
 * right-to-left text Arabic's "35.00 US$" would otherwise come out as "$US 35.00". With `free`,
 * a zero price is that word instead.
 */
export function Money({ cents, currency, locale, free }: { cents: number; currency: string; locale: string; free?: string }) {
  // A price of nothing, where the caller names it ("Free"), is a word of the page's language.
  if (cents === 0 && free) return <>{free}</>;
  return <Ltr>{formatMoney(cents, currency, locale)}</Ltr>;
}

/** A user-provided text (a business's name, an address) follows its own script inside any sentence. */
export function UserText({ children }: { children: ReactNode }) {
  return <bdi>{children}</bdi>;
}

/**
 * A translated sentence with values that people typed (a business's name, an e-mail) each in
 * its own isolate: an English name inside an Arabic sentence keeps its letters and the
 * sentence's punctuation in place. Numbers in the sentence are isolated too.
 */
export function tIsolated(t: TFunction, key: ParseKeys, values: Record<string, string | number | ReactElement>): ReactNode {
  const names = Object.keys(values);
  // Private-use characters stand in for the values while the sentence is translated.
  const markers = Object.fromEntries(names.map((name, index) => [name, String.fromCharCode(0xe000 + index)]));
  const text: string = t(key, { ...markers, interpolation: { escapeValue: false } });
  // One inline box, as isolateNumbers.
  return (
    <span>
      {text.split(/([\ue000-\ue0ff])/).map((part, index) => {
        if (index % 2 === 0) return part ? <Fragment key={index}>{numberParts(part)}</Fragment> : null;
        const name = names[part.charCodeAt(0) - 0xe000];
        const value = name === undefined ? "" : values[name];
        // An element (<Money>, <Ltr>) brings its own isolation.
        return isValidElement(value) ? <Fragment key={index}>{value}</Fragment> : <bdi key={index}>{value}</bdi>;
      })}
    </span>
  );
}

export { isolatedText } from "~/lib/isolate";
