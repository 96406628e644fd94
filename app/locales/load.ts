import type { i18n as I18n } from "i18next";
import type { Language } from "~/i18n";
import type en from "./en";

/** One chunk per language: a page downloads only the texts of the language it is shown in. */
const loaders: Record<Language, () => Promise<{ default: typeof en }>> = {
  en: () => import("./en"),
  ar: () => import("./ar"),
  es: () => import("./es"),
  fr: () => import("./fr"),
  de: () => import("./de"),
  it: () => import("./it"),
};

export async function loadTexts(language: Language) {
  return (await loaders[language]()).default;
}

/** Switches the page's language, fetching its texts first if this page has not got them yet. */
export async function showLanguage(i18n: I18n, language: Language) {
  if (!i18n.hasResourceBundle(language, "translation")) i18n.addResourceBundle(language, "translation", await loadTexts(language));
  if (i18n.language !== language) await i18n.changeLanguage(language);
}
