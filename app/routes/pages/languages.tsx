import { Link } from "~/ui/link";
import type { Route } from "./+types/languages";
import { StaticPage, Section } from "~/ui/shell/static-page";
import { callLanguages } from "~/lib/languages";
import { buttonClass, linkClass } from "~/ui/form/button";

export const meta: Route.MetaFunction = () => [
  { title: "Supported Languages · Sakina" },
  {
    name: "description",
    content:
      "Sakina's AI listener speaks English, Arabic, Spanish, French, German and Italian, each with a female and a male voice and companion.",
  },
];

const listClass = "list-disc space-y-1 ps-6";
const headerCellClass = "px-3 py-2 text-start font-semibold text-slate-900";
const cellClass = "px-3 py-2 text-slate-800";

/** Voice ids are lower-case ("shimmer"); the table shows them as names ("Shimmer"). */
function voiceName(voice: string) {
  return voice.charAt(0).toUpperCase() + voice.slice(1);
}

const [english] = callLanguages;

export default function LanguagesPage() {
  return (
    <StaticPage
      title="Supported Languages"
      intro={
        <p>
          You can talk to Sakina&apos;s AI listener in {callLanguages.length} languages. In every language you choose a female or a male
          voice, and your AI companion introduces itself by name at the start of the call.
        </p>
      }
    >
      <div className="space-y-8 text-slate-800">
        <Section title="Languages, voices and AI companions">
          <div
            role="region"
            aria-labelledby="languages-caption"
            // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- a scrolling table must take focus so keyboard users can scroll it (axe: scrollable-region-focusable)
            tabIndex={0}
            className="overflow-x-auto rounded-xl border border-slate-200 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-700"
          >
            <table className="w-full min-w-[40rem] border-collapse text-sm">
              <caption id="languages-caption" className="px-3 pt-3 pb-2 text-start font-medium text-slate-900">
                The {callLanguages.length} call languages, with the regions they serve, their voices and the names of the AI companions
              </caption>
              <thead className="bg-slate-50">
                <tr className="border-b border-slate-300">
                  <th scope="col" className={headerCellClass}>
                    Language
                  </th>
                  <th scope="col" className={headerCellClass}>
                    Region
                  </th>
                  <th scope="col" className={headerCellClass}>
                    Female voice
                  </th>
                  <th scope="col" className={headerCellClass}>
                    Male voice
                  </th>
                  <th scope="col" className={headerCellClass}>
                    Female AI companion
                  </th>
                  <th scope="col" className={headerCellClass}>
                    Male AI companion
                  </th>
                </tr>
              </thead>
              <tbody>
                {callLanguages.map((language) => (
                  <tr key={language.id} className="border-b border-slate-200 align-top last:border-b-0">
                    <th scope="row" className="px-3 py-2 text-start font-medium text-slate-900">
                      {language.name}
                      {language.nativeName !== language.name ? (
                        <>
                          {" "}
                          <span lang={language.code} dir={language.code === "ar" ? "rtl" : "ltr"} className="font-normal text-slate-700">
                            ({language.nativeName})
                          </span>
                        </>
                      ) : null}
                    </th>
                    <td className={cellClass}>{language.region}</td>
                    <td className={cellClass}>{voiceName(language.femaleVoice)}</td>
                    <td className={cellClass}>{voiceName(language.maleVoice)}</td>
                    <td className={cellClass} lang={language.code}>
                      {language.femaleCompanion}
                    </td>
                    <td className={cellClass} lang={language.code}>
                      {language.maleCompanion}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </Section>

        <Section title="Choosing your language and voice">
          <ul className={listClass}>
            <li>Pick the language and the voice when you request a call, before you pay. The whole call takes place in that language.</li>
            <li>
              Subscribers can change their preferred language at any time in their call preferences; the change applies to the next
              scheduled call.
            </li>
            <li>
              The AI companion&apos;s name tells you which voice you chose. For example, in {english.name} the female voice introduces
              itself as {english.femaleCompanion} and the male voice as {english.maleCompanion}.
            </li>
            <li>Speak naturally, the way you usually talk. If the AI misunderstands you, just say it again in other words.</li>
          </ul>
        </Section>

        <Section title="The language of the website">
          <p>
            Sakina&apos;s screens are available in the same six languages, and Arabic is shown right to left. Choose your interface language
            on the{" "}
            <Link className={linkClass} to="/language">
              language page
            </Link>
            . The language of the website and the language of your call are separate choices, so you can, for example, use the site in
            English and talk in Arabic.
          </p>
          <p>Our detailed information pages, such as this one and our legal pages, are written in English.</p>
        </Section>

        <Section title="Ready to talk in your language?">
          <p>A 10-minute call costs $5, and the AI listener usually calls you within 30-60 seconds.</p>
          <p>
            <Link className={buttonClass()} to="/">
              Request a call
            </Link>
          </p>
        </Section>
      </div>
    </StaticPage>
  );
}
