import { createInstance, type i18n as I18n, type TFunction } from "i18next";
import type { MiddlewareFunction, RouterContextProvider } from "react-router";
import { createI18nextMiddleware } from "remix-i18next";
import { fallbackLanguage, i18nOptions, isLanguage, supportedLanguages, type Language } from "~/i18n";
import { resources } from "~/locales/all.server";
import { localeCookie } from "~/platform/http/cookies.server";

/** The Saudi agent's hub is an Arabic page (DESIGN.md section 3) unless the visitor chose a language. */
const ARABIC_FIRST = new Set(["/call"]);

/**
 * Language from ?lng=, then the cookie the switcher sets, then the page's own (ARABIC_FIRST), then
 * Accept-Language; each request gets an i18next instance in that language. Its texts are the
 * shared `resources` (referenced, not copied), and it is initialised at once: with i18next's
 * default (`initAsync`) every request waited for a timer, about 1 ms, before its page rendered.
 * The instance costs 20-40 µs of CPU a request (2026-12-02, a loaded 2-core machine) over one
 * shared per language, which remix-i18next 7's separate detector allowed; 8 has only this.
 */
const [detectingMiddleware, detectedLocale, detectedInstance] = createI18nextMiddleware({
  detection: {
    supportedLanguages: [...supportedLanguages],
    fallbackLanguage,
    cookie: localeCookie,
    order: ["searchParams", "cookie", "custom", "header"],
    // `url`, not `request.url`: React Router 8 hands loaders and middleware the raw request,
    // whose path ends in ".data" when the page is asked for its data.
    findLocale: async ({ url }) => (ARABIC_FIRST.has(url.pathname) ? "ar" : null),
  },
  i18next: { ...i18nOptions, resources, initAsync: false },
});

export const i18nextMiddleware: MiddlewareFunction<Response> = (args, next) =>
  detectingMiddleware({ ...args, request: withShortAcceptLanguage(args.request) }, next);

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

export function getLocale(context: Readonly<RouterContextProvider>): Language {
  const locale = detectedLocale(context);
  return isLanguage(locale) ? locale : fallbackLanguage;
}

/** The request's i18next instance; throws when the i18next middleware has not run. */
export function getI18n(context: Readonly<RouterContextProvider>): I18n {
  return detectedInstance(context);
}

/** One initialised instance per language, made once, for work outside a request. */
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

/** A t() for a fixed language, for work outside a request (jobs sending e-mail). */
export async function translatorFor(language: string): Promise<TFunction> {
  return (await instanceFor(isLanguage(language) ? language : fallbackLanguage)).t;
}

/** A language chosen in the URL (?lng=ar) sticks: it is kept in the cookie for later pages. */
export const persistLanguageMiddleware: MiddlewareFunction<Response> = async ({ request, url }, next) => {
  const fromUrl = url.searchParams.get("lng");
  const response = await next();
  if (isLanguage(fromUrl) && (await localeCookie.parse(request.headers.get("Cookie"))) !== fromUrl) {
    response.headers.append("Set-Cookie", await localeCookie.serialize(fromUrl));
  }
  return response;
};
