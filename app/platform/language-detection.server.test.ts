import { RouterContextProvider } from "react-router";
import { createI18nextMiddleware } from "remix-i18next";
import { describe, expect, it } from "vitest";
import { fallbackLanguage, supportedLanguages } from "~/i18n";
import { localeCookie } from "~/platform/http/cookies.server";
import { languageDetector, type Detection } from "~/platform/language-detection.server";

const options: Detection = {
  supportedLanguages: [...supportedLanguages],
  fallbackLanguage,
  cookie: localeCookie,
  order: ["searchParams", "cookie", "custom", "header"],
  findLocale: async ({ url }) => (url.pathname === "/call" ? "ar" : null),
};

/** remix-i18next's own choice, through its middleware. */
const [theirMiddleware, theirLocale] = createI18nextMiddleware({
  detection: { ...options, supportedLanguages: [...options.supportedLanguages], order: [...options.order] },
  i18next: { initAsync: false, resources: {} },
});
async function theirs(request: Request, url: URL) {
  const context = new RouterContextProvider();
  await theirMiddleware({ request, url, context, params: {}, pattern: "/" } as never, (async () => new Response("")) as never);
  return theirLocale(context);
}
const ours = languageDetector(options);

const HEADERS = [
  undefined,
  "",
  "de",
  "de-CH,de;q=0.9",
  "de-CH,fr",
  "fr-CA;q=0.8,ar-SA;q=0.9",
  "zh-Hant-TW,it;q=0.5",
  "sr-Latn-RS,es;q=0.1",
  "ja,en-GB;q=0.7",
  "*",
  "*;q=0.5,fr",
  "EN-us",
  "es-419,es;q=0.9",
  "x-klingon,it",
  "de;q=abc,fr;q=0.4",
  "de;q=1.5,fr",
  "q=0.5",
  "en-,fr",
  "a,b,c,ar",
  "de ; q=0.2 , it ; q=0.3",
  "de-DE-1996-x,es",
  "und,ar",
  "en-US;level=1;q=0.3,fr;q=0.2",
];

describe("the language a request is answered in", () => {
  it("is the one remix-i18next's detector chooses, from the address, the cookie, the page and Accept-Language", async () => {
    const cookies = [undefined, "ar", "fr-CA", "xx", "", "EN", "es-MX,it"].map((value) =>
      value === undefined ? undefined : localeCookie.serialize(value).then((line) => line.split(";")[0]!),
    );
    let compared = 0;
    for (const path of ["/", "/call", "/call.data", "/book/demo-salon"]) {
      for (const lng of [undefined, "fr", "ar-EG", "", "klingon", "IT", "de-CH,fr"]) {
        for (const cookie of cookies) {
          for (const acceptLanguage of HEADERS) {
            const search = lng === undefined ? "" : `?lng=${encodeURIComponent(lng)}`;
            const headers: Record<string, string> = {};
            if (acceptLanguage !== undefined) headers["Accept-Language"] = acceptLanguage;
            if ((await cookie) !== undefined) headers.Cookie = (await cookie)!;
            const url = new URL(`${path.replace(/\.data$/, "")}${search}`, "http://localhost");
            const request = () => new Request(`http://localhost${path}${search}`, { headers });
            expect(await ours({ request: request(), url }), `${path}${search} ${JSON.stringify(headers)}`).toBe(
              await theirs(request(), url),
            );
            compared++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(3000);
  });
});
