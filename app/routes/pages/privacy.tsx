import { Link } from "~/ui/link";
import type { Route } from "./+types/privacy";
import { StaticPage, Section, formatLastUpdated } from "~/ui/shell/static-page";
import { linkClass } from "~/ui/form/button";

export const meta: Route.MetaFunction = () => [
  { title: "Privacy Policy · Sakina" },
  {
    name: "description",
    content:
      "How Sakina collects, uses, keeps and protects your data, from anonymous $5 support calls to subscriptions and business accounts.",
  },
];

// The date comes from the server so that the server and the client render the same text.
export function loader() {
  return { lastUpdated: formatLastUpdated() };
}

const listClass = "list-disc space-y-1 ps-6";
const subheadingClass = "text-lg font-semibold text-slate-900";

const retention = [
  {
    data: "Phone number of an anonymous pay-per-call",
    period: "Erased 24 hours after the call (an automatic job checks every ten minutes)",
  },
  {
    data: "Abuse-limit counters (your IP address, the numbers and e-mail addresses used on our forms)",
    period:
      "Stored only as a keyed hash, never the address or number itself; deleted automatically two days after the counting window ends",
  },
  {
    data: "Sign-in and verification links, and signed-in sessions",
    period: "Deleted automatically once used or expired",
  },
  {
    data: "Call transcript (phone numbers, e-mail addresses and names redacted)",
    period:
      "Kept for quality and AI improvement; it no longer identifies you, and we delete it on request where it is linked to your account",
  },
  {
    data: "Audio recording (only when recording is enabled)",
    period: "12 months, then deleted automatically",
  },
  {
    data: "Payment records (amount, date, Stripe reference, no card details)",
    period: "7 years, because tax and accounting law requires it",
  },
  {
    data: "Subscriber and business account data",
    period: "While your account is open; deleted when it is closed, except records the law requires us to keep",
  },
  {
    data: "Messages sent through the contact form",
    period: "As long as needed to answer and resolve your request",
  },
];

export default function PrivacyPage({ loaderData }: Route.ComponentProps) {
  return (
    <StaticPage
      title="Privacy Policy"
      lastUpdated={loaderData.lastUpdated}
      intro={
        <p>
          Sakina is built to be anonymous. For a single emotional-support call, your phone number is the only personal detail we need, and
          we erase it within 24 hours after the call. This policy explains what we collect, why, who helps us process it, how long we keep
          it and the rights you have.
        </p>
      }
    >
      <div className="space-y-8 text-slate-800">
        <Section title="1. Who we are and what this policy covers">
          <p>
            This policy applies to the Sakina website and apps, the AI emotional-support calls we place for individuals, consumer
            subscriptions, and the appointment concierge we provide to businesses (the booking page and the AI calls that confirm bookings).
            Sakina decides how and why this data is processed and is the controller for it. When a business uses Sakina to take bookings
            from its own customers, the business is the controller of its customers&apos; booking data and Sakina processes it on the
            business&apos;s behalf.
          </p>
          <p>
            Questions about privacy go to{" "}
            <a className={linkClass} href="mailto:privacy@sakina.app">
              privacy@sakina.app
            </a>
            .
          </p>
        </Section>

        <Section title="2. Data we collect">
          <h3 className={subheadingClass}>Anonymous pay-per-call</h3>
          <ul className={listClass}>
            <li>Your phone number, so that we can call you.</li>
            <li>The language and the voice (female or male) you choose for the call.</li>
            <li>
              A payment reference from Stripe confirming that the $5 payment succeeded. We never see or store your card number, expiry date
              or security code.
            </li>
            <li>Your confirmation that you are 18 or older.</li>
          </ul>

          <h3 className={subheadingClass}>During a call</h3>
          <ul className={listClass}>
            <li>A written transcript of the conversation, in which phone numbers, e-mail addresses and names are redacted.</li>
            <li>Technical call details such as start time, duration and whether the call connected.</li>
            <li>
              An audio recording only if call recording has been enabled. Recording is off by default. Where it is enabled and lawful, the
              AI tells you at the start of the call that the call is being recorded.
            </li>
          </ul>

          <h3 className={subheadingClass}>Subscribers</h3>
          <ul className={listClass}>
            <li>Your full name, e-mail address and phone number.</li>
            <li>
              Your plan and call frequency, your call preferences (language, schedule, preferred time, time zone and whether you want
              reminder e-mails) and your call history.
            </li>
            <li>Billing status from Stripe (trial, active or cancelled, and the next billing date).</li>
          </ul>

          <h3 className={subheadingClass}>Businesses and their customers</h3>
          <ul className={listClass}>
            <li>
              The business name, the owner&apos;s name, e-mail address and phone number, the industry, services, opening hours and voice
              settings.
            </li>
            <li>
              For people who book through a business&apos;s booking page: name, phone number, and optionally an e-mail address and notes,
              the appointment chosen, the outcome of the confirmation call, and any request not to be called again.
            </li>
          </ul>

          <h3 className={subheadingClass}>When you contact us or use the site</h3>
          <ul className={listClass}>
            <li>The e-mail address, subject, message and urgency you send through the contact form.</li>
            <li>
              The small number of cookies described in our{" "}
              <Link className={linkClass} to="/cookies">
                Cookie Policy
              </Link>
              , none of them for advertising.
            </li>
            <li>
              Your IP address and the numbers and e-mail addresses you enter, used for a short time to limit abuse such as fraudulent or
              harassing calls. Our counters keep only a keyed hash of them, never the address or number itself.
            </li>
          </ul>
        </Section>

        <Section title="3. How we use your data">
          <ul className={listClass}>
            <li>To place the call you asked for, in the language and voice you chose.</li>
            <li>To take payments and manage subscriptions and business plans.</li>
            <li>
              To keep callers safe: when a caller uses crisis language, the call is flagged so that a person on our team can review it.
            </li>
            <li>
              To improve the quality of our service and our AI, using redacted transcripts (and recordings, only when recording is enabled).
            </li>
            <li>
              To send the e-mails you need: receipts, sign-in links, account and security notices, and call reminders if you turned them on.
            </li>
            <li>
              For businesses: to show their booking page, place confirmation calls to their customers and show them their bookings and
              analytics.
            </li>
            <li>To prevent fraud and abuse, and to meet our legal obligations.</li>
          </ul>
          <p className="font-medium text-slate-900">
            We never sell your data, and we never share it with anyone for marketing or advertising.
          </p>
        </Section>

        <Section title="4. Call recording and transcripts">
          <p>
            Audio recording is off by default. What we keep by default is a transcript of the call with phone numbers, e-mail addresses and
            names redacted. We use it to check the quality of conversations and to improve the AI.
          </p>
          <p>
            If call recording is enabled, we only record where it is lawful to do so, the AI discloses it at the start of the call, and
            recordings are deleted automatically after 12 months. If you do not want to continue a recorded call, you can hang up at any
            time.
          </p>
        </Section>

        <Section title="5. Legal bases">
          <p>Where data-protection law such as the GDPR applies, we rely on:</p>
          <ul className={listClass}>
            <li>
              <strong>Performance of a contract</strong>: placing the call you paid for, running your subscription or business account.
            </li>
            <li>
              <strong>Legitimate interests</strong>: keeping the service safe, preventing fraud, and improving quality using redacted
              transcripts.
            </li>
            <li>
              <strong>Legal obligation</strong>: keeping payment records for tax and accounting.
            </li>
            <li>
              <strong>Consent</strong>: optional reminder e-mails and, where required, call recording. You can withdraw consent at any time.
            </li>
          </ul>
        </Section>

        <Section title="6. Processors we work with">
          <p>
            A few carefully chosen companies process data for us under contracts that allow them to use it only to provide their service to
            Sakina:
          </p>
          <ul className={listClass}>
            <li>
              <strong>Stripe</strong> processes card and wallet payments. Your card details go directly to Stripe; Sakina stores no card
              details.
            </li>
            <li>
              <strong>Twilio</strong> places and connects the phone calls.
            </li>
            <li>
              <strong>OpenAI</strong> generates the AI&apos;s voice and responses during calls.
            </li>
            <li>Our e-mail delivery and hosting providers, which send our e-mails and run our servers and database.</li>
          </ul>
          <p>We disclose data to authorities only when the law requires it, and we push back on requests that are not legally valid.</p>
        </Section>

        <Section title="7. International transfers">
          <p>
            Some of our processors handle data in countries other than yours, including the United States. Where the law requires it, these
            transfers are protected by safeguards such as the European Commission&apos;s Standard Contractual Clauses.
          </p>
        </Section>

        <Section title="8. How long we keep data">
          <div className="overflow-x-auto">
            <table className="w-full border-collapse text-start text-sm">
              <caption className="mb-2 text-start font-medium text-slate-900">Retention periods by type of data</caption>
              <thead>
                <tr className="border-b border-slate-300">
                  <th scope="col" className="py-2 pe-4 text-start font-semibold text-slate-900">
                    Data
                  </th>
                  <th scope="col" className="py-2 text-start font-semibold text-slate-900">
                    How long we keep it
                  </th>
                </tr>
              </thead>
              <tbody>
                {retention.map((row) => (
                  <tr key={row.data} className="border-b border-slate-200 align-top">
                    <th scope="row" className="py-2 pe-4 text-start font-medium text-slate-900">
                      {row.data}
                    </th>
                    <td className="py-2 text-slate-800">{row.period}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p>These deletions run automatically on a schedule; nobody has to remember to do them.</p>
        </Section>

        <Section title="9. How we protect your data">
          <ul className={listClass}>
            <li>All traffic to Sakina is encrypted in transit with HTTPS.</li>
            <li>Passwords are stored only as strong one-way hashes, never in readable form.</li>
            <li>
              Cookies are signed, forms are protected against cross-site request forgery, and provider webhooks are verified before we act
              on them.
            </li>
            <li>Access to personal data within Sakina is limited to people who need it.</li>
            <li>We store no card details at all.</li>
          </ul>
        </Section>

        <Section title="10. Your rights">
          <p>
            Depending on where you live, you can ask us to give you access to your data, export it, correct it or delete it, and you can
            object to or restrict how we use it. E-mail{" "}
            <a className={linkClass} href="mailto:privacy@sakina.app">
              privacy@sakina.app
            </a>{" "}
            and we will answer within 30 days. We may need to confirm that the request comes from you before acting on it.
          </p>
          <p>
            Because we erase the phone number of an anonymous call within 24 hours, after that time we can no longer link the call to you,
            so there is nothing left that identifies you.
          </p>
          <p>
            You also have the right to complain to your local data-protection authority. We would appreciate the chance to resolve your
            concern first.
          </p>
        </Section>

        <Section title="11. Age">
          <p>
            Sakina is only for adults aged 18 or older. We do not knowingly collect data from anyone younger. If you believe a minor has
            used Sakina, contact us and we will delete their data.
          </p>
        </Section>

        <Section title="12. Changes to this policy">
          <p>
            When we change this policy, we update the date at the top of this page. If a change materially affects how we use your data, we
            will tell subscribers and business owners by e-mail before it takes effect.
          </p>
        </Section>

        <Section title="13. Contact">
          <p>
            For privacy questions and requests, e-mail{" "}
            <a className={linkClass} href="mailto:privacy@sakina.app">
              privacy@sakina.app
            </a>
            . For anything else, use our{" "}
            <Link className={linkClass} to="/contact">
              contact page
            </Link>{" "}
            or read how we keep calls{" "}
            <Link className={linkClass} to="/safety">
              safe
            </Link>
            .
          </p>
        </Section>
      </div>
    </StaticPage>
  );
}
