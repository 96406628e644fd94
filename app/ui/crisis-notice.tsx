import { useTranslation } from "~/ui/translation";
import { textDirection } from "~/i18n";
import { HELP_DIRECTORY, helpCountries, helpFor, type EmergencyNumber, type HelpCountry, type HelpLine } from "~/lib/help-lines";
import { isolateNumbers, Ltr } from "~/ui/bidi";
import { useRootData } from "~/ui/shell/root-data";

const sortedNames = new Map<string, { code: HelpCountry; name: string }[]>();

/**
 * Country names in the page's language, sorted as that language sorts them: made once per
 * language (building the Intl objects and sorting was a visible share of every page's render).
 */
function countryNames(language: string) {
  let sorted = sortedNames.get(language);
  if (!sorted) {
    const names = new Intl.DisplayNames([language], { type: "region" });
    const collator = new Intl.Collator(language);
    sorted = helpCountries.map((code) => ({ code, name: names.of(code) ?? code })).sort((a, b) => collator.compare(a.name, b.name));
    sortedNames.set(language, sorted);
  }
  return sorted;
}

/** A service's numbers on one row (TelefonSeelsorge has two). */
function byService(lines: readonly HelpLine[]) {
  const rows = new Map<string, HelpLine[]>();
  for (const line of lines) rows.set(line.name, [...(rows.get(line.name) ?? []), line]);
  return [...rows];
}

/** A number as a link that dials it, read left to right inside any paragraph and never broken across lines. */
function Dial({ number }: { number: string }) {
  return (
    <a href={`tel:${number.replace(/\s/g, "")}`} className="font-semibold whitespace-nowrap underline underline-offset-2">
      <Ltr>{number}</Ltr>
    </a>
  );
}

/**
 * Where to get help now, for the visitor's country: its emergency number and the crisis lines the
 * table confirms (else a directory of help lines). With `chooseAction`, a small GET form lets the
 * visitor pick another country; it works without JavaScript.
 */
export function CrisisNotice({
  headingLevel = 2,
  country,
  chooseAction,
  keep = {},
}: {
  headingLevel?: 2 | 3;
  /** The visitor's likely country; the root loader's guess when not given. */
  country?: HelpCountry;
  chooseAction?: string;
  /** Query parameters the choose form carries along (e.g. the home page's step). */
  keep?: Record<string, string>;
}) {
  const { t, i18n } = useTranslation();
  const root = useRootData();
  const shown: HelpCountry = country ?? root?.helpCountry ?? "US";
  const help = helpFor(shown);
  const names = countryNames(i18n.language);
  const countryName = names.find((entry) => entry.code === shown)?.name ?? shown;
  const Heading = `h${headingLevel}` as const;
  const service = (entry: EmergencyNumber) => (entry.service ? ` (${t(`crisis.service_${entry.service}`)})` : "");
  return (
    <aside
      id="help-lines"
      aria-labelledby="crisis-notice-title"
      lang={i18n.language}
      dir={textDirection(i18n.language)}
      className="scroll-mt-6 rounded-xl border border-rose-200 bg-rose-50 p-4 text-rose-950 sm:p-5"
    >
      <Heading id="crisis-notice-title" className="text-base font-semibold">
        {t("crisis.title")}
      </Heading>
      <p className="mt-1 text-sm">{isolateNumbers(t("crisis.body"))}</p>
      <p className="mt-3 text-sm font-semibold" data-help-country={shown}>
        {t("crisis.linesIn", { country: countryName })}
      </p>
      <ul className="mt-1 space-y-1 text-sm">
        <li>
          {t("crisis.emergency")}{" "}
          {help.emergency.numbers.map((entry, index) => (
            <span key={entry.number}>
              {index > 0 ? " · " : null}
              <Dial number={entry.number} />
              {service(entry)}
            </span>
          ))}
        </li>
        {byService(help.lines).map(([name, lines]) => (
          <li key={name}>
            <bdi>{name}</bdi>:{" "}
            {lines.map((line, index) => (
              <span key={line.number}>
                {index > 0 ? " · " : null}
                <Dial number={line.number} />
                {line.text ? ` (${t("crisis.callOrText")})` : null}
              </span>
            ))}
          </li>
        ))}
        {help.lines.length === 0 ? (
          <li>
            {t("crisis.directory")}{" "}
            <a href={HELP_DIRECTORY.url} className="font-semibold underline underline-offset-2">
              <Ltr>{HELP_DIRECTORY.label}</Ltr>
            </a>
          </li>
        ) : null}
      </ul>
      {chooseAction ? (
        <form method="get" action={`${chooseAction}#help-lines`} className="mt-3 flex flex-wrap items-end gap-2 text-sm">
          {Object.entries(keep).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <label className="flex min-w-0 flex-col gap-1">
            <span>{t("crisis.chooseCountry")}</span>
            <select
              name="helpCountry"
              defaultValue={shown}
              className="max-w-full rounded-lg border border-rose-300 bg-white px-2 py-1.5 text-rose-950"
            >
              {names.map((entry) => (
                <option key={entry.code} value={entry.code}>
                  {entry.name}
                </option>
              ))}
            </select>
          </label>
          <button
            type="submit"
            className="rounded-lg border border-rose-700 bg-white px-3 py-1.5 font-medium text-rose-900 hover:bg-rose-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-rose-800"
          >
            {t("crisis.chooseButton")}
          </button>
        </form>
      ) : null}
    </aside>
  );
}
