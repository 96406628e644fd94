const RTL_LETTER = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]/u;
const LTR_LETTER = /(?![\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc])\p{L}/u;
const RTL_LANGUAGES = new Set(["ar", "he", "fa", "ur"]);

/**
 * A name inside a `<title>`, an attribute, a plain-text e-mail or a message, where no element can
 * isolate it: wrapped in Unicode's first-strong isolate (FSI … PDI) only when it holds letters
 * written in the other direction from the sentence's language (a Latin name in Arabic, an Arabic
 * one in English). A name in the page's own script gets no invisible characters: they would show
 * up in copied titles and in plain-text mail readers that draw them as boxes.
 */
export function isolatedText(text: string, language: string) {
  const rtl = RTL_LANGUAGES.has(language.split("-")[0]!.toLowerCase());
  const foreign = rtl ? LTR_LETTER : RTL_LETTER;
  return foreign.test(text) ? `\u2068${text}\u2069` : text;
}
