import type { InitOptions } from "i18next";

export const supportedLanguages = ["en", "ar", "es", "fr", "de", "it"] as const;
export type Language = (typeof supportedLanguages)[number];
export const fallbackLanguage: Language = "en";

/** Each language named in itself, as a switcher shows it. */
export const languageNames: Record<Language, string> = {
  en: "English",
  ar: "العربية",
  es: "Español",
  fr: "Français",
  de: "Deutsch",
  it: "Italiano",
};

/**
 * Options shared by the server and the browser. The texts are not here: the server holds all six
 * languages (locales/all.server.ts), the browser loads only the page's (locales/load.ts).
 */
export const i18nOptions = {
  supportedLngs: [...supportedLanguages],
  fallbackLng: fallbackLanguage,
  defaultNS: "translation",
  interpolation: { escapeValue: false },
} satisfies InitOptions;

export function isLanguage(value: unknown): value is Language {
  return typeof value === "string" && (supportedLanguages as readonly string[]).includes(value);
}

export function textDirection(language: string): "rtl" | "ltr" {
  return language === "ar" ? "rtl" : "ltr";
}
