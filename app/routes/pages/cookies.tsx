import { Link } from "~/ui/link";
import type { Route } from "./+types/cookies";
import { StaticPage, Section, formatLastUpdated } from "~/ui/shell/static-page";
import { linkClass } from "~/ui/form/button";

export const meta: Route.MetaFunction = () => [
  { title: "Cookie Policy · Sakina" },
  {
    name: "description",
    content: "The four cookies Sakina sets, what each one does and how long it lasts; no advertising or third-party analytics cookies.",
  },
];

// The date comes from the server so that the server and the client render the same text.
export function loader() {
  return { lastUpdated: formatLastUpdated() };
}

const listClass = "list-disc space-y-1 ps-6";

const cookies = [
  {
    name: "lng",
    purpose: "Remembers the language you chose for Sakina's screens.",
    duration: "1 year",
    category: "Preference",
  },
  {
    name: "csrf",
    purpose: "Form security: a random token that proves a form was sent from Sakina and not from another website.",
    duration: "Session (deleted when you close your browser)",
    category: "Strictly necessary",
  },
  {
    name: "toast",
    purpose: "Carries a one-time notification message (for example \u201cMessage sent successfully\u201d) to the next page.",
    duration: "Until the message has been shown",
    category: "Strictly necessary",
  },
  {
    name: "session",
    purpose: "Keeps signed-in business owners and subscribers signed in.",
    duration: "30 days, or until you sign out",
    category: "Strictly necessary",
  },
];

export default function CookiesPage({ loaderData }: Route.ComponentProps) {
  return (
    <StaticPage
      title="Cookie Policy"
      lastUpdated={loaderData.lastUpdated}
      intro={
        <p>
          Sakina uses as few cookies as possible: four small first-party cookies that make the site work and remember your language. We use
          no advertising cookies and no third-party analytics cookies.
        </p>
      }
    >
      <div className="space-y-8 text-slate-800">
        <Section title="What cookies are">
          <p>
            Cookies are small text files that a website asks your browser to keep and send back on your next visit. They let a site remember
            things such as your language or that you are signed in.
          </p>
        </Section>

        <Section title="The cookies we set">
          <div className="overflow-x-auto">
            <table className="w-full border-collapse text-sm">
              <caption className="mb-2 text-start font-medium text-slate-900">Cookies set by Sakina</caption>
              <thead>
                <tr className="border-b border-slate-300">
                  <th scope="col" className="py-2 pe-4 text-start font-semibold text-slate-900">
                    Name
                  </th>
                  <th scope="col" className="py-2 pe-4 text-start font-semibold text-slate-900">
                    Purpose
                  </th>
                  <th scope="col" className="py-2 pe-4 text-start font-semibold text-slate-900">
                    Duration
                  </th>
                  <th scope="col" className="py-2 text-start font-semibold text-slate-900">
                    Type
                  </th>
                </tr>
              </thead>
              <tbody>
                {cookies.map((cookie) => (
                  <tr key={cookie.name} className="border-b border-slate-200 align-top">
                    <th scope="row" className="py-2 pe-4 text-start font-medium text-slate-900">
                      <code className="rounded bg-slate-100 px-1 py-0.5 font-mono">{cookie.name}</code>
                    </th>
                    <td className="py-2 pe-4 text-slate-800">{cookie.purpose}</td>
                    <td className="py-2 pe-4 text-slate-800">{cookie.duration}</td>
                    <td className="py-2 text-slate-800">{cookie.category}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p>
            All four are first-party cookies: only Sakina can read them. They are marked HttpOnly so that scripts on the page cannot read
            them, and SameSite so that other websites cannot use them. The security-related cookies are signed, so they cannot be altered.
            The <code className="rounded bg-slate-100 px-1 py-0.5 font-mono">session</code> cookie is only set when you sign in.
          </p>
        </Section>

        <Section title="What we do not use">
          <ul className={listClass}>
            <li>No advertising or retargeting cookies.</li>
            <li>No third-party analytics cookies, and no social-media tracking pixels.</li>
            <li>No cookies that follow you across other websites.</li>
          </ul>
          <p>
            Every cookie we set is either needed for the site to work or remembers a choice you made yourself. None of them is used to track
            or profile you.
          </p>
        </Section>

        <Section title="Stripe on the payment form">
          <p>
            When you pay, the card form is provided by our payment processor, Stripe. Stripe sets its own cookies on that form to detect and
            prevent fraud. These cookies are controlled by Stripe and described in{" "}
            <a className={linkClass} href="https://stripe.com/cookies-policy/legal" rel="noopener noreferrer">
              Stripe&apos;s cookie policy
            </a>
            . Stripe does not use them for advertising on Sakina.
          </p>
        </Section>

        <Section title="Managing cookies">
          <p>You can see and delete cookies in your browser settings, and you can block them. If you block Sakina&apos;s cookies:</p>
          <ul className={listClass}>
            <li>
              without <code className="rounded bg-slate-100 px-1 py-0.5 font-mono">csrf</code>, forms such as the call request and contact
              form cannot be sent;
            </li>
            <li>
              without <code className="rounded bg-slate-100 px-1 py-0.5 font-mono">session</code>, you cannot stay signed in to your
              dashboard;
            </li>
            <li>
              without <code className="rounded bg-slate-100 px-1 py-0.5 font-mono">lng</code>, the site uses your browser&apos;s language or
              English.
            </li>
          </ul>
        </Section>

        <Section title="More information">
          <p>
            Our{" "}
            <Link className={linkClass} to="/privacy">
              Privacy Policy
            </Link>{" "}
            explains how we handle personal data. Questions about cookies go to{" "}
            <a className={linkClass} href="mailto:privacy@sakina.app">
              privacy@sakina.app
            </a>
            .
          </p>
        </Section>
      </div>
    </StaticPage>
  );
}
