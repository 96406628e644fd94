import { RouterContextProvider } from "react-router";
import { describe, expect, it } from "vitest";
import { localeCookie } from "~/platform/http/cookies.server";
import { getI18n, getLocale, i18nextMiddleware } from "~/platform/i18n.server";

/** The Cookie header of a visitor who chose Arabic in the switcher. */
const choseArabic = async () => (await localeCookie.serialize("ar")).split(";")[0]!;

/** What a page of `path` gets from the i18next middleware: its language and i18next instance. */
async function pageLanguage(path: string, headers: Record<string, string> = {}) {
  const request = new Request(`http://localhost${path}`, { headers });
  // React Router's own `url`: the page's address, without the ".data" of a data request.
  const url = new URL(path.replace(/\.data(?=\?|$)/, ""), "http://localhost");
  const context = new RouterContextProvider();
  await i18nextMiddleware({ request, url, context, params: {}, pattern: "/" } as never, (async () => new Response("")) as never);
  return { language: getLocale(context), i18n: getI18n(context) };
}

describe("the page's language", () => {
  it("follows ?lng=, then the cookie, then Accept-Language, and falls back to English", async () => {
    expect((await pageLanguage("/?lng=fr", { "Accept-Language": "de", Cookie: await choseArabic() })).language).toBe("fr");
    expect((await pageLanguage("/", { "Accept-Language": "de", Cookie: await choseArabic() })).language).toBe("ar");
    expect((await pageLanguage("/", { "Accept-Language": "de-CH,de;q=0.9" })).language).toBe("de");
    expect((await pageLanguage("/", { "Accept-Language": "ja" })).language).toBe("en");
  });

  it("is Arabic on the Saudi hub until the visitor chooses, for the page and for its data", async () => {
    expect((await pageLanguage("/call", { "Accept-Language": "en" })).language).toBe("ar");
    expect((await pageLanguage("/call.data", { "Accept-Language": "en" })).language).toBe("ar");
    expect((await pageLanguage("/call?lng=es")).language).toBe("es");
  });

  it("reads the first tags of a 15 KB Accept-Language", async () => {
    expect((await pageLanguage("/", { "Accept-Language": `it,${"a,".repeat(7_500)}` })).language).toBe("it");
  });

  it("is one i18next instance per language, shared by every page, so what a render remembers lasts", async () => {
    const first = await pageLanguage("/", { "Accept-Language": "ar" });
    const second = await pageLanguage("/business", { Cookie: await choseArabic() });
    expect(second.i18n).toBe(first.i18n);
    expect(first.i18n.language).toBe("ar");
    expect((await pageLanguage("/", { "Accept-Language": "en" })).i18n).not.toBe(first.i18n);
  });
});
