import { createI18nextMiddleware } from "remix-i18next/middleware";
import { fallbackLanguage, i18nOptions, supportedLanguages } from "~/i18n";
import { localeCookie } from "./cookies.server";

/** Language from ?lng=, then the cookie the switcher sets, then Accept-Language. */
export const [i18nextMiddleware, getLocale, getI18n] = createI18nextMiddleware({
  detection: {
    supportedLanguages: [...supportedLanguages],
    fallbackLanguage,
    cookie: localeCookie,
    order: ["searchParams", "cookie", "header"],
  },
  i18next: i18nOptions,
});
