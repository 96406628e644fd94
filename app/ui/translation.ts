import type { i18n as I18n, TFunction } from "i18next";
import { useContext } from "react";
import { I18nContext, useTranslation as useLibraryTranslation } from "react-i18next";
import { perKey } from "~/lib/sharing/per-key";

export interface Translation {
  t: TFunction;
  i18n: I18n;
}

/**
 * The components' `useTranslation()`: react-i18next's own in the browser, where it re-renders the
 * component when the language changes. On the server each of its calls copied the i18n
 * instance's property descriptors into a new wrapper and made a new `t`, and every `t("key")` went
 * through i18next's resolution: together about a sixth of a page's render. The server's instances
 * are one per language (platform/i18n.server.ts), never change language and are shared by every
 * request, so one `{ t, i18n }` per instance serves every call, and a key without options is
 * resolved once.
 */
export const useTranslation: () => Translation =
  typeof document === "undefined" ? useServerTranslation : (useLibraryTranslation as () => Translation);

const translationOf = perKey((i18n: I18n): Translation => ({ t: rememberingPlainKeys(i18n.getFixedT(i18n.language)), i18n }));

function useServerTranslation(): Translation {
  return translationOf(useContext(I18nContext).i18n);
}

/** Enough for every key the app's code names; a key made from input beyond it is resolved each time. */
const MAX_REMEMBERED_KEYS = 10_000;

/** `t`, remembering the text of each key asked without options (resources never change on the server). */
function rememberingPlainKeys(t: TFunction): TFunction {
  const translate = t as unknown as (...args: unknown[]) => unknown;
  const texts = new Map<string, unknown>();
  const remembering = (key: unknown, ...rest: unknown[]) => {
    if (rest.length > 0 || typeof key !== "string") return translate(key, ...rest);
    let text = texts.get(key);
    if (text === undefined) {
      text = translate(key);
      if (texts.size < MAX_REMEMBERED_KEYS) texts.set(key, text);
    }
    return text;
  };
  return Object.assign(remembering, t) as unknown as TFunction;
}
