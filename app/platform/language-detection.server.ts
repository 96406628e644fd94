import type { Cookie } from "react-router";

/**
 * remix-i18next's choice of a page's language (its LanguageDetector, version 8, which it no longer
 * exports), rule for rule: the sources in `order`, each matched against the supported languages
 * exactly, then by language alone. Its middleware also made an i18next instance per request that
 * the app dropped (i18n.server.ts shares one per language): 45 µs of every request's CPU. A test
 * compares this with remix-i18next's own middleware on a few hundred requests.
 */
export interface Detection {
  supportedLanguages: readonly string[];
  fallbackLanguage: string;
  cookie: Cookie;
  order: readonly ("searchParams" | "cookie" | "custom" | "header")[];
  findLocale(args: { request: Request; url: URL }): Promise<string | null>;
}

export function languageDetector(options: Detection) {
  const fromSupported = (language: string) =>
    pick(options.supportedLanguages, language, { loose: false }) || pick(options.supportedLanguages, language, { loose: true });
  return async function detect(args: { request: Request; url: URL }): Promise<string> {
    const { request, url } = args;
    for (const method of options.order) {
      let locale: string | null = null;
      if (method === "searchParams") {
        // The request's own address, as remix-i18next reads it (a data request's ends in ".data").
        const params = new URL(request.url).searchParams;
        locale = params.has("lng") ? fromSupported(params.get("lng")!) : null;
      } else if (method === "cookie") {
        const lng: unknown = await options.cookie.parse(request.headers.get("Cookie"));
        locale = typeof lng === "string" && lng ? fromSupported(lng) : null;
      } else if (method === "custom") {
        const found = await options.findLocale({ request, url });
        locale = found ? fromSupported(found) : null;
      } else {
        const client = clientLocale(request.headers.get("Accept-Language"));
        locale = client ? fromSupported(client) : null;
      }
      if (locale) return locale;
    }
    return options.fallbackLanguage;
  };
}

/** The visitor's best language tag that Intl knows, as remix-i18next's getClientLocales finds it. */
function clientLocale(acceptLanguage: string | null) {
  if (!acceptLanguage) return undefined;
  const valid = parse(acceptLanguage)
    .filter((language) => language.code !== "*")
    .map(formatLanguage)
    .filter((locale) => {
      try {
        new Intl.Locale(locale);
        return true;
      } catch {
        return false;
      }
    });
  return pick(Intl.DateTimeFormat.supportedLocalesOf(valid), acceptLanguage) ?? undefined;
}

interface Language {
  code: string;
  script: string | null;
  region: string | undefined;
}

/** An Accept-Language value's tags, highest quality first (ties in their order). */
function parse(acceptLanguage: string): (Language & { quality: number })[] {
  const languages: (Language & { quality: number })[] = [];
  for (const part of acceptLanguage.split(",")) {
    const entry = part.trim();
    if (!entry) continue;
    const bits = entry.split(";");
    const tag = bits.shift()?.trim();
    if (!tag || !isLanguageTag(tag)) continue;
    const ietf = tag.split("-");
    const hasScript = ietf.length === 3;
    let quality = 1.0;
    for (const parameter of bits) {
      const parsed = qualityOf(parameter);
      if (parsed === null) continue;
      quality = parsed;
      break;
    }
    languages.push({ code: ietf[0]!, script: hasScript ? ietf[1]! : null, region: hasScript ? ietf[2] : ietf[1], quality });
  }
  return languages.sort((a, b) => b.quality - a.quality);
}

function isLanguageTag(value: string) {
  if (value === "*") return true;
  const parts = value.split("-");
  if (parts.length > 3 || !/^[a-zA-Z]+$/.test(parts[0] ?? "")) return false;
  return parts.slice(1).every((part) => /^[a-zA-Z0-9]+$/.test(part));
}

function qualityOf(value: string) {
  const parameter = value.trim();
  if (!parameter.startsWith("q")) return null;
  const [key, quality] = parameter.split("=");
  if (key?.trim() !== "q" || !quality || !/^[0-1](\.[0-9]+)?\s*$/.test(quality)) return null;
  return Number.parseFloat(quality);
}

/** The first supported language the visitor's tags name: with their script and region, or (`loose`) by language alone. */
function pick(supportedLanguages: readonly string[], acceptLanguage: string, options = { loose: false }) {
  if (!supportedLanguages.length || !acceptLanguage) return null;
  const supported = supportedLanguages.map((support): Language => {
    const bits = support.split("-");
    const hasScript = bits.length === 3;
    return { code: bits[0]!, script: hasScript ? bits[1]! : null, region: (hasScript ? bits[2] : bits[1]) ?? undefined };
  });
  for (const language of parse(acceptLanguage)) {
    const code = language.code.toLowerCase();
    const region = language.region?.toLowerCase();
    const script = language.script?.toLowerCase();
    for (const candidate of supported) {
      if (code !== candidate.code.toLowerCase()) continue;
      if (
        (options.loose || !script || script === candidate.script?.toLowerCase()) &&
        (options.loose || !region || region === candidate.region?.toLowerCase())
      ) {
        return formatLanguage(candidate);
      }
    }
  }
  return null;
}

function formatLanguage(language: Language) {
  return [language.code, language.script, language.region].filter(Boolean).join("-");
}
