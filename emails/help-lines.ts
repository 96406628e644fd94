import type { TFunction } from "i18next";
import { HELP_DIRECTORY, helpFor, type HelpCountry } from "~/lib/help-lines";
import { escapeHtml } from "./layout";

/** The help lines of one country as the e-mails list them, numbers marked for isolation. */
function parts(t: TFunction, lang: string, country: HelpCountry) {
  const help = helpFor(country);
  const emergency = help.emergency.numbers.map((entry) => ({
    number: entry.number,
    after: entry.service ? ` (${t(`crisis.service_${entry.service}`)})` : "",
  }));
  const lines = help.lines.map((line) => ({
    name: line.name,
    number: line.number,
    after: line.text ? ` (${t("crisis.callOrText")})` : "",
  }));
  const countryName = new Intl.DisplayNames([lang], { type: "region" }).of(country) ?? country;
  return { emergency, lines, countryName, directory: lines.length ? null : HELP_DIRECTORY };
}

/** The country's emergency numbers and crisis lines (or the directory), as one plain-text line. */
export function helpLinesText(t: TFunction, lang: string, country: HelpCountry) {
  const { emergency, lines, countryName, directory } = parts(t, lang, country);
  const items = [
    `${t("crisis.emergency")} ${emergency.map((entry) => `${entry.number}${entry.after}`).join(" · ")}`,
    ...lines.map((line) => `${line.name}: ${line.number}${line.after}`),
    ...(directory ? [`${t("crisis.directory")} ${directory.url}`] : []),
  ];
  return t("crisis.emailLines", { country: countryName, lines: items.join("; ") });
}

/** The same as an HTML paragraph: numbers and the address read left to right inside Arabic. */
export function helpLinesHtml(t: TFunction, lang: string, country: HelpCountry) {
  const { emergency, lines, countryName, directory } = parts(t, lang, country);
  const ltr = (text: string) => `<bdi dir="ltr">${escapeHtml(text)}</bdi>`;
  const items = [
    `${escapeHtml(t("crisis.emergency"))} ${emergency.map((entry) => `${ltr(entry.number)}${escapeHtml(entry.after)}`).join(" · ")}`,
    ...lines.map((line) => `<bdi>${escapeHtml(line.name)}</bdi>: ${ltr(line.number)}${escapeHtml(line.after)}`),
    ...(directory ? [`${escapeHtml(t("crisis.directory"))} <a href="${escapeHtml(directory.url)}">${ltr(directory.label)}</a>`] : []),
  ];
  const text = t("crisis.emailLines", { country: "\u0000country\u0000", lines: "\u0000lines\u0000" });
  const html = escapeHtml(text).replace("\u0000country\u0000", escapeHtml(countryName)).replace("\u0000lines\u0000", items.join("; "));
  return `<p style="margin:0 0 16px">${html}</p>`;
}
