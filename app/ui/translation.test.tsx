import { createInstance } from "i18next";
import { renderToString } from "react-dom/server";
import { I18nextProvider } from "react-i18next";
import { describe, expect, it } from "vitest";
import { i18nOptions } from "~/i18n";
import { resources } from "~/locales/all.server";
import en from "~/locales/en";
import fr from "~/locales/fr";
import { useTranslation } from "./translation";

function Texts() {
  const { t } = useTranslation();
  return (
    <p>
      {t("meta.appName")}|{t("common.tooManyRequests", { minutes: 7 })}|{t("common.tooManyRequests", { minutes: 9 })}
    </p>
  );
}

async function instance(lng: "en" | "fr") {
  const i18n = createInstance({ ...i18nOptions, resources, lng });
  await i18n.init();
  return i18n;
}

const render = (i18n: Awaited<ReturnType<typeof instance>>) =>
  renderToString(
    <I18nextProvider i18n={i18n}>
      <Texts />
    </I18nextProvider>,
  );

const expected = (texts: typeof en) =>
  `<p>${[texts.meta.appName, texts.common.tooManyRequests.replace("{{minutes}}", "7"), texts.common.tooManyRequests.replace("{{minutes}}", "9")].join("<!-- -->|<!-- -->")}</p>`;

describe("the server's useTranslation", () => {
  it("gives each language its own texts, render after render, with a call's options applied each time", async () => {
    const [english, french] = await Promise.all([instance("en"), instance("fr")]);
    for (let round = 0; round < 2; round++) {
      expect(render(english)).toBe(expected(en));
      expect(render(french)).toBe(expected(fr as unknown as typeof en));
    }
    expect(expected(en)).not.toBe(expected(fr as unknown as typeof en));
  });

  it("answers a key asked with values as i18next does, for each set of values, plural counts included", async () => {
    const english = await instance("en");
    const calls: [string, Record<string, string | number>][] = [
      ["book.dayMany", { day: "Thursday 12 March", count: 6 }],
      ["book.dayMany", { day: "Thursday 12 March", count: 1 }],
      ["book.dayMany", { day: "Friday 13 March", count: 6 }],
      ["common.tooManyRequests", { minutes: 1 }],
      ["common.tooManyRequests", { minutes: "1" }],
    ];
    function Many() {
      const { t } = useTranslation();
      return <p>{calls.map(([key, options]) => t(key as "meta.appName", options)).join("|")}</p>;
    }
    const library = calls.map(([key, options]) => english.t(key as "meta.appName", options)).join("|");
    for (let round = 0; round < 2; round++) {
      expect(
        renderToString(
          <I18nextProvider i18n={english}>
            <Many />
          </I18nextProvider>,
        ),
      ).toBe(`<p>${library.replaceAll("&", "&amp;")}</p>`);
    }
    expect(new Set(library.split("|")).size).toBe(calls.length - 1);
  });
});
