import { createInstance, type TFunction } from "i18next";
import type { MiddlewareFunction } from "react-router";
import { createI18nextMiddleware } from "remix-i18next/middleware";
import { fallbackLanguage, i18nOptions, isLanguage, supportedLanguages } from "~/i18n";
import { resources } from "~/locales/all.server";
import { localeCookie } from "~/platform/cookies.server";

/** Language from ?lng=, then the cookie the switcher sets, then Accept-Language. */
export const [i18nextMiddleware, getLocale, getI18n] = createI18nextMiddleware({
  detection: {
    supportedLanguages: [...supportedLanguages],
    fallbackLanguage,
    cookie: localeCookie,
    order: ["searchParams", "cookie", "header"],
  },
  i18next: { ...i18nOptions, resources },
});

const translators = new Map<string, Promise<TFunction>>();

/** A t() for a fixed language, for work outside a request (jobs sending e-mail). */
export function translatorFor(language: string): Promise<TFunction> {
  const lng = isLanguage(language) ? language : fallbackLanguage;
  let translator = translators.get(lng);
  if (!translator) {
    const instance = createInstance();
    translator = instance.init({ ...i18nOptions, resources, lng }).then(() => instance.t);
    translators.set(lng, translator);
  }
  return translator;
}

/** A language chosen in the URL (?lng=ar) sticks: it is kept in the cookie for later pages. */
export const persistLanguageMiddleware: MiddlewareFunction<Response> = async ({ request }, next) => {
  const fromUrl = new URL(request.url).searchParams.get("lng");
  const response = await next();
  if (isLanguage(fromUrl) && (await localeCookie.parse(request.headers.get("Cookie"))) !== fromUrl) {
    response.headers.append("Set-Cookie", await localeCookie.serialize(fromUrl));
  }
  return response;
};
