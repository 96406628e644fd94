import { createInstance, type i18n as I18n, type TFunction } from "i18next";
import { createContext, type MiddlewareFunction, type RouterContextProvider } from "react-router";
import { RemixI18Next } from "remix-i18next/server";
import { fallbackLanguage, i18nOptions, isLanguage, supportedLanguages, type Language } from "~/i18n";
import { resources } from "~/locales/all.server";
import { localeCookie } from "~/platform/http/cookies.server";

/** Language from ?lng=, then the cookie the switcher sets, then Accept-Language. */
const detector = new RemixI18Next({
  detection: {
    supportedLanguages: [...supportedLanguages],
    fallbackLanguage,
    cookie: localeCookie,
    order: ["searchParams", "cookie", "header"],
  },
});

/**
 * One initialised i18next instance per language, made once and shared by every request in that
 * language: nothing on the server changes an instance's language or resources, and creating one
 * per request (as remix-i18next's middleware does) was a large share of each page's time.
 */
const instances = new Map<Language, Promise<I18n>>();
function instanceFor(lng: Language) {
  let instance = instances.get(lng);
  if (!instance) {
    const created = createInstance({ ...i18nOptions, resources, lng });
    instance = created.init().then(() => created);
    instances.set(lng, instance);
  }
  return instance;
}

const localeContext = createContext<Language>(fallbackLanguage);
const i18nContext = createContext<I18n | null>(null);

/** The Saudi agent's hub is an Arabic page (DESIGN.md section 3) unless the visitor chose a language. */
const ARABIC_FIRST = new Set(["/call"]);

export const i18nextMiddleware: MiddlewareFunction<Response> = async ({ request, context }, next) => {
  const url = new URL(request.url);
  const chosen = url.searchParams.has("lng") || (await localeCookie.parse(request.headers.get("Cookie")));
  const detected = ARABIC_FIRST.has(url.pathname) && !chosen ? "ar" : await detector.getLocale(withShortAcceptLanguage(request));
  const lng = isLanguage(detected) ? detected : fallbackLanguage;
  context.set(localeContext, lng);
  context.set(i18nContext, await instanceFor(lng));
  return next();
};

/** Browsers send a few dozen characters; what the detector reads is cut to whole tags within this. */
const MAX_ACCEPT_LANGUAGE = 256;

/**
 * The request as the language detector should see it: its Accept-Language cut to the first tags
 * that fit MAX_ACCEPT_LANGUAGE. The detector checks every tag with `Intl`, so 15 KB of "a," cost
 * it 150-250 ms per request.
 */
function withShortAcceptLanguage(request: Request) {
  const header = request.headers.get("Accept-Language");
  if (!header || header.length <= MAX_ACCEPT_LANGUAGE) return request;
  const cut = header.slice(0, MAX_ACCEPT_LANGUAGE);
  const headers = new Headers(request.headers);
  headers.set("Accept-Language", cut.slice(0, Math.max(0, cut.lastIndexOf(","))));
  return new Request(request.url, { headers });
}

export function getLocale(context: Readonly<RouterContextProvider>) {
  return context.get(localeContext);
}

export function getI18n(context: Readonly<RouterContextProvider>) {
  const instance = context.get(i18nContext);
  if (!instance) throw new Error("getI18n needs the i18next middleware to have run");
  return instance;
}

/** A t() for a fixed language, for work outside a request (jobs sending e-mail). */
export async function translatorFor(language: string): Promise<TFunction> {
  return (await instanceFor(isLanguage(language) ? language : fallbackLanguage)).t;
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
