import { rememberedTranslation } from "~/lib/remembered-texts";
import { createInstance, type i18n as I18n, type TFunction } from "i18next";
import { createContext, type MiddlewareFunction, type RouterContextProvider } from "react-router";
import { fallbackLanguage, i18nOptions, isLanguage, supportedLanguages, type Language } from "~/i18n";
import { resources } from "~/locales/all.server";
import { localeCookie } from "~/platform/http/cookies.server";
import { languageDetector } from "~/platform/language-detection.server";

/**
 * Language from ?lng=, then the cookie the switcher sets, then the page's own (ARABIC_FIRST), then
 * Accept-Language: remix-i18next's detection (language-detection.server.ts), without its
 * middleware, which also made an i18next instance per request (about 45 µs of CPU) that was
 * dropped here. The page gets the shared instance of its language instead, since the render's
 * caches are kept per instance (ui/translation.ts remembers each text, features/booking/schemas.ts
 * each schema): with an instance per request they would start empty on every page.
 */
const detectLanguage = languageDetector({
  supportedLanguages: [...supportedLanguages],
  fallbackLanguage,
  cookie: localeCookie,
  order: ["searchParams", "cookie", "custom", "header"],
  // `url`, not `request.url`: React Router 8 hands loaders and middleware the raw request,
  // whose path ends in ".data" when the page is asked for its data.
  findLocale: async ({ url }) => (ARABIC_FIRST.has(url.pathname) ? "ar" : null),
});

const localeContext = createContext<string | null>(null);

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

const i18nContext = createContext<I18n | null>(null);

/** The Saudi agent's hub is an Arabic page (DESIGN.md section 3) unless the visitor chose a language. */
const ARABIC_FIRST = new Set(["/call"]);

export const i18nextMiddleware: MiddlewareFunction<Response> = async ({ request, url, context }, next) => {
  context.set(localeContext, await detectLanguage({ request: withShortAcceptLanguage(request), url }));
  context.set(i18nContext, await instanceFor(getLocale(context)));
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

export function getLocale(context: Readonly<RouterContextProvider>): Language {
  const locale = context.get(localeContext);
  return isLanguage(locale) ? locale : fallbackLanguage;
}

export function getI18n(context: Readonly<RouterContextProvider>) {
  const instance = context.get(i18nContext);
  if (!instance) throw new Error("getI18n needs the i18next middleware to have run");
  return instance;
}

/**
 * The request's `t`, for loaders and actions: the one the page's components use, remembering its
 * answers (app/lib/remembered-texts.ts), shared by every request in the language.
 */
export function getT(context: Readonly<RouterContextProvider>): TFunction {
  return rememberedTranslation(getI18n(context)).t;
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
