import { useContext } from "react";
import { I18nContext, useTranslation as useLibraryTranslation } from "react-i18next";
import { rememberedTranslation as translationOf, type Translation } from "~/lib/remembered-texts";

export type { Translation };

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

function useServerTranslation(): Translation {
  return translationOf(useContext(I18nContext).i18n);
}
