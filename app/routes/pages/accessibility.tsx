import { Link } from "~/ui/link";
import type { Route } from "./+types/accessibility";
import { StaticPage, Section } from "~/ui/shell/static-page";
import { buttonClass, linkClass } from "~/ui/form/button";

export const meta: Route.MetaFunction = () => [
  { title: "Accessibility · Sakina" },
  {
    name: "description",
    content:
      "Sakina's commitment to WCAG 2.1 AA, what we do for visual, hearing and cognitive accessibility, and how to tell us about a barrier.",
  },
];

const listClass = "list-disc space-y-1 ps-6";
const subheadingClass = "text-lg font-semibold text-slate-900";

export default function AccessibilityPage() {
  return (
    <StaticPage
      title="Accessibility"
      intro={
        <p>
          Everyone deserves to be heard. We want requesting a call, paying, managing a subscription and booking an appointment with Sakina
          to be easy for everyone, including people with disabilities and people using assistive technology.
        </p>
      }
    >
      <div className="space-y-8 text-slate-800">
        <Section title="Our commitment">
          <p>
            We design and build Sakina to meet the Web Content Accessibility Guidelines (WCAG) 2.1 at level AA. We check pages with
            automated accessibility tests and with a keyboard before we release them. Accessibility is part of how we build, not something
            we add at the end.
          </p>
        </Section>

        <Section title="Visual accessibility">
          <ul className={listClass}>
            <li>Text and controls meet WCAG AA colour-contrast ratios.</li>
            <li>
              You can zoom to 200% or use your browser&apos;s larger text settings without losing content or functions; the layout adapts to
              small screens.
            </li>
            <li>Colour is never the only way we show information, such as an error or a status.</li>
            <li>Every interactive element shows a clearly visible focus outline.</li>
            <li>Images and icons have text alternatives, or are hidden from screen readers when they are only decorative.</li>
          </ul>
        </Section>

        <Section title="Hearing accessibility">
          <ul className={listClass}>
            <li>
              Everything on the website, from requesting a call to managing your subscription or your business bookings, works without
              hearing anything: confirmations and errors are shown as text.
            </li>
            <li>
              Emotional-support calls are spoken phone calls. They reach your phone like any other incoming call, so a captioned-telephone
              or relay service you use on your own line can work with them.
            </li>
            <li>You can ask the AI listener to speak more slowly or to repeat itself at any time during a call.</li>
            <li>Business owners can adjust the speaking speed of the AI voice used for confirmation calls.</li>
          </ul>
        </Section>

        <Section title="Cognitive accessibility">
          <ul className={listClass}>
            <li>We write in plain language and explain one step at a time.</li>
            <li>Navigation and page layout stay the same across the site, so you always know where to find things.</li>
            <li>
              Forms ask only for what is needed. If something is wrong, the message says what to fix and appears next to the field it is
              about.
            </li>
            <li>Prices and durations are shown before you pay: $5 for a call of up to 10 minutes, with no hidden fees.</li>
          </ul>
        </Section>

        <Section title="Device and technology compatibility">
          <h3 className={subheadingClass}>Works without JavaScript</h3>
          <p>
            Pages are rendered on our server, and navigation, forms and the questions on our{" "}
            <Link className={linkClass} to="/faq">
              FAQ
            </Link>{" "}
            page work without JavaScript. The secure card form is provided by our payment processor, Stripe, and needs JavaScript.
          </p>
          <h3 className={subheadingClass}>Screen readers</h3>
          <p>
            We use semantic HTML, headings in order, labelled form fields and landmarks, so Sakina works with screen readers such as NVDA,
            JAWS, VoiceOver and TalkBack. English content inside another interface language is marked as English so that it is pronounced
            correctly.
          </p>
          <h3 className={subheadingClass}>Keyboard</h3>
          <p>
            Every function can be used with a keyboard alone, in a logical order, and a &quot;Skip to main content&quot; link lets you go
            straight past the navigation.
          </p>
          <h3 className={subheadingClass}>Right-to-left Arabic</h3>
          <p>When you choose Arabic, the whole interface switches to a right-to-left layout, with text, icons and navigation mirrored.</p>
          <h3 className={subheadingClass}>Browsers and devices</h3>
          <p>Sakina works in current versions of Chrome, Firefox, Safari and Edge, on phones, tablets and computers.</p>
        </Section>

        <Section title="Known limitations">
          <ul className={listClass}>
            <li>Emotional-support calls are voice calls; we do not yet offer a text-only version.</li>
            <li>
              Our detailed information and legal pages, such as this one, are available in English only; the rest of the interface is
              available in six languages.
            </li>
            <li>The card payment form is provided by Stripe, and its accessibility is managed by Stripe.</li>
          </ul>
        </Section>

        <Section title="Feedback and contact">
          <p>
            If you meet a barrier on Sakina, or something is hard to use, please tell us. E-mail{" "}
            <a className={linkClass} href="mailto:accessibility@sakina.app">
              accessibility@sakina.app
            </a>{" "}
            and we will respond within 24 hours. It helps if you tell us the page, the device and browser, and any assistive technology you
            use. If you need information from our site in another format, ask us and we will provide it.
          </p>
          <div className="flex flex-wrap gap-3">
            <Link className={buttonClass()} to="/">
              Request a call
            </Link>
            <Link className={buttonClass()} to="/contact">
              Contact us
            </Link>
          </div>
        </Section>
      </div>
    </StaticPage>
  );
}
