import type { Page } from "playwright-core";

/**
 * What reads wrong when a right-to-left paragraph reorders it: an international number (+966 …),
 * grouped digits or a range (116 123, 212 555 0100, 30–60), a three-digit line (911, 988, 000) or a number of
 * five digits or more (741741, 8001234), and a price ($5, 35.00 US$, 12,00 €).
 */
const SOURCES = [
  String.raw`\+\s?\d`,
  String.raw`\d{2,}(?:[ \u00a0\u202f\-–]\d{2,})+`,
  String.raw`(?<!\d)(?:\d{3}|\d{5,})(?!\d)`,
  String.raw`[$€£]\s?\d`,
  String.raw`\d[\u00a0\u202f ]?(?:US\$|\$|€|£)`,
];

/**
 * The texts of the page's body that hold such a number outside an isolate: a `<bdi>`, an element
 * with `dir="ltr"` or `dir="auto"` (content pages written in English are `dir="ltr"` as a whole,
 * but an Arabic block inside one, `dir="rtl"`, is checked again), or a form control.
 */
export async function unisolatedNumbers(page: Page): Promise<string[]> {
  return page.evaluate((sources) => {
    const patterns = sources.map((source) => new RegExp(source));
    const found: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      const text = node.textContent ?? "";
      if (!parent || parent.closest("script, style, template, noscript")) continue;
      if (!patterns.some((pattern) => pattern.test(text))) continue;
      // The nearest isolate or direction decides: an rtl block inside an ltr page is rtl again.
      let isolated = false;
      for (let element: Element | null = parent; element && element !== document.body; element = element.parentElement) {
        if (["BDI", "INPUT", "TEXTAREA", "SELECT"].includes(element.tagName)) {
          isolated = true;
          break;
        }
        const dir = element.getAttribute("dir");
        if (dir) {
          isolated = dir === "ltr" || dir === "auto";
          break;
        }
      }
      if (!isolated) found.push(text.trim());
    }
    return found;
  }, SOURCES);
}
