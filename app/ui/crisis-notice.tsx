import { useTranslation } from "react-i18next";
import { textDirection } from "~/i18n";
import { isolateNumbers } from "~/ui/bidi";

/** The fixed crisis contacts the spec asks for wherever a caller might be in distress. */
export function CrisisNotice({ headingLevel = 2 }: { headingLevel?: 2 | 3 }) {
  const { t, i18n } = useTranslation();
  const Heading = `h${headingLevel}` as const;
  return (
    <aside
      aria-labelledby="crisis-notice-title"
      lang={i18n.language}
      dir={textDirection(i18n.language)}
      className="rounded-xl border border-rose-200 bg-rose-50 p-4 text-rose-950 sm:p-5"
    >
      <Heading id="crisis-notice-title" className="text-base font-semibold">
        {t("crisis.title")}
      </Heading>
      <p className="mt-1 text-sm">{isolateNumbers(t("crisis.body"))}</p>
      <ul className="mt-2 space-y-1 text-sm">
        <li>{isolateNumbers(t("crisis.us"))}</li>
        <li>{isolateNumbers(t("crisis.uk"))}</li>
        <li>{isolateNumbers(t("crisis.ca"))}</li>
        <li>{isolateNumbers(t("crisis.au"))}</li>
      </ul>
    </aside>
  );
}
