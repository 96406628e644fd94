import type { i18n as I18n, TFunction } from "i18next";
import { perKey } from "~/lib/sharing/per-key";

export interface Translation {
  t: TFunction;
  i18n: I18n;
}

/**
 * One `{ t, i18n }` per server i18n instance (one per language, shared by every request, never
 * changing language), its `t` remembering its answers: the components' useTranslation on the
 * server (app/ui/translation.ts) and the loaders' getT (app/platform/i18n.server.ts).
 */
export const rememberedTranslation = perKey((i18n: I18n): Translation => ({ t: rememberingTexts(i18n.getFixedT(i18n.language)), i18n }));

/** Enough for every key the app's code names; a key made from input beyond it is resolved each time. */
const MAX_REMEMBERED_KEYS = 10_000;
/** Texts with values ("Thursday 12 March, 6 times available"): when full, it starts again. */
const MAX_REMEMBERED_TEXTS = 20_000;

/**
 * `t`, remembering its answers (resources never change on the server): the text of each key asked
 * without options, and of each key asked with options whose values are all plain (a day, a count).
 * A booking page's month tables name every bookable day this way, 30 calls a page that each went
 * through i18next's interpolation and plural rules.
 */
function rememberingTexts(t: TFunction): TFunction {
  const translate = t as unknown as (...args: unknown[]) => unknown;
  const texts = new Map<string, unknown>();
  const withValues = new Map<string, unknown>();
  const remembering = (key: unknown, ...rest: unknown[]) => {
    if (typeof key !== "string") return translate(key, ...rest);
    if (rest.length === 0) {
      let text = texts.get(key);
      if (text === undefined) {
        text = translate(key);
        if (texts.size < MAX_REMEMBERED_KEYS) texts.set(key, text);
      }
      return text;
    }
    const id = rest.length === 1 ? plainOptionsId(key, rest[0]) : null;
    if (id === null) return translate(key, ...rest);
    let text = withValues.get(id);
    if (text === undefined) {
      text = translate(key, rest[0]);
      if (withValues.size >= MAX_REMEMBERED_TEXTS) withValues.clear();
      withValues.set(id, text);
    }
    return text;
  };
  return Object.assign(remembering, t) as unknown as TFunction;
}

/** The key and its options as one string, when every option is a string, number or boolean; else null. */
function plainOptionsId(key: string, options: unknown) {
  if (typeof options !== "object" || options === null || Object.getPrototypeOf(options) !== Object.prototype) return null;
  let id = key;
  for (const [name, value] of Object.entries(options)) {
    const type = typeof value;
    if (type !== "string" && type !== "number" && type !== "boolean") return null;
    // The type's initial keeps 1 and "1" apart: i18next's plural rules read a count as a number.
    id += `\u0000${name}\u0000${type[0]}${String(value)}`;
  }
  return id;
}
