import { Link } from "~/ui/link";
import type { Route } from "./+types/terms";
import { StaticPage, Section, formatLastUpdated } from "~/ui/shell/static-page";
import { linkClass } from "~/ui/form/button";

export const meta: Route.MetaFunction = () => [
  { title: "Terms of Service · Sakina" },
  {
    name: "description",
    content: "The terms for using Sakina's AI emotional-support calls, subscriptions and business appointment concierge.",
  },
];

// The date comes from the server so that the server and the client render the same text.
export function loader() {
  return { lastUpdated: formatLastUpdated() };
}

const listClass = "list-disc space-y-1 ps-6";
const subheadingClass = "text-lg font-semibold text-slate-900";

export default function TermsPage({ loaderData }: Route.ComponentProps) {
  return (
    <StaticPage
      title="Terms of Service"
      lastUpdated={loaderData.lastUpdated}
      intro={
        <p>
          These terms are the agreement between you and Sakina when you use our website, request an AI emotional-support call, subscribe, or
          use our appointment concierge for your business. Please read them carefully; by using Sakina you accept them.
        </p>
      }
    >
      <div className="space-y-8 text-slate-800">
        <Section title="1. Who can use Sakina">
          <ul className={listClass}>
            <li>You must be 18 or older. We ask you to confirm this before every paid call.</li>
            <li>You may only ask us to call a phone number that is yours or that you are authorised to use.</li>
            <li>
              If you register a business, you confirm that you are allowed to act for that business and that the details you give us are
              accurate.
            </li>
          </ul>
        </Section>

        <Section title="2. What Sakina is, and what it is not">
          <p>
            Sakina offers conversations with an AI listener: a judgment-free space to talk and feel heard. The AI always introduces itself
            as an AI. It is not a person, and it is not a therapist, doctor or counsellor.
          </p>
          <ul className={listClass}>
            <li>It gives no medical advice and no diagnosis.</li>
            <li>It is not crisis intervention and cannot send help to you.</li>
            <li>It is not a substitute for professional care.</li>
          </ul>
          <p className="font-medium text-slate-900">
            If you or someone else is in danger, call your local emergency number now (911 in the United States and Canada, 999 in the
            United Kingdom, 000 in Australia). Our{" "}
            <Link className={linkClass} to="/safety">
              Safety page
            </Link>{" "}
            lists crisis lines.
          </p>
        </Section>

        <Section title="3. Pay-per-call">
          <ul className={listClass}>
            <li>A single emotional-support call costs $5 (USD) and lasts up to 10 minutes.</li>
            <li>After your payment succeeds we call you, usually within 30-60 seconds and up to 2-3 minutes at times of high demand.</li>
            <li>One payment buys one call. The call ends automatically at 10 minutes.</li>
            <li>
              If we cannot place a call you have paid for, contact{" "}
              <a className={linkClass} href="mailto:support@sakina.app">
                support@sakina.app
              </a>{" "}
              and we will place the call again or refund the $5.
            </li>
          </ul>
        </Section>

        <Section title="4. Subscriptions">
          <ul className={listClass}>
            <li>Plans, billed monthly: weekly calls $9.99/month, twice a week $12.99/month, every two days $14.99/month.</li>
            <li>
              Every subscription starts with a 7-day trial that includes 5 calls, and your first call is free. We collect your card at
              signup; billing starts when the trial ends, or earlier if you choose &quot;Upgrade to monthly&quot;.
            </li>
            <li>A paid subscription includes up to 30 calls a month.</li>
            <li>
              You can cancel at any time from your dashboard. You keep access until the end of the billing period you have paid for, and you
              will not be charged again.
            </li>
          </ul>
        </Section>

        <Section title="5. Business accounts">
          <h3 className={subheadingClass}>Pricing</h3>
          <ul className={listClass}>
            <li>
              Starter: $1 for 7 days, with 20 AI calls included. AI calls are confirmation calls, reminder calls and calls the AI
              receptionist answers on your number.
            </li>
            <li>Then $99/month for 100 AI calls, and $1 for each additional AI call in the same month.</li>
          </ul>
          <h3 className={subheadingClass}>Your responsibilities</h3>
          <ul className={listClass}>
            <li>Keep your login details secret and change the temporary password we send you at your first login.</li>
            <li>Keep your services, prices and opening hours accurate; your customers book on the basis of what you publish.</li>
            <li>
              Use the booking page and confirmation calls only for genuine bookings. Our booking form tells your customers that an AI
              assistant will phone to confirm; the AI introduces itself as your business&apos;s assistant, calls only between 08:00 and
              21:00 in the customer&apos;s time zone, and honours any request not to be called again.
            </li>
            <li>You are responsible for your relationship with your customers, including the services you deliver to them.</li>
          </ul>
        </Section>

        <Section title="6. Payments">
          <p>
            Prices are in US dollars and may be subject to tax where you live. Payments are processed securely by Stripe. Your card details
            go directly to Stripe; Sakina stores no card details. Recurring charges are taken automatically on each billing date until you
            cancel.
          </p>
        </Section>

        <Section title="7. Acceptable use">
          <p>You agree not to:</p>
          <ul className={listClass}>
            <li>ask us to call anyone without their consent, or use Sakina to harass anyone;</li>
            <li>abuse free demo calls, generate calls to premium-rate numbers, or attempt any other telephone fraud;</li>
            <li>use Sakina for anything unlawful;</li>
            <li>try to break, overload, reverse-engineer or get around the security of the service;</li>
            <li>resell the service without our written permission.</li>
          </ul>
          <p>
            To protect everyone, we limit how often calls can be requested from one connection or to one number, and we do not call certain
            countries or number ranges.
          </p>
        </Section>

        <Section title="8. Calls, transcripts and recordings">
          <p>
            By default we keep a transcript of each call with phone numbers, e-mail addresses and names redacted, for quality and AI
            improvement. Audio recording is off by default; when it is enabled, the AI tells you at the start of the call and recordings are
            kept for 12 months. Our{" "}
            <Link className={linkClass} to="/privacy">
              Privacy Policy
            </Link>{" "}
            explains how we handle your data.
          </p>
        </Section>

        <Section title="9. Availability">
          <p>
            We aim for 99.9% uptime, but we cannot promise that Sakina will always be available or free of errors. Calls depend on telephone
            networks and on providers outside our control. When we plan maintenance, we try to do it at quiet times.
          </p>
        </Section>

        <Section title="10. Our content">
          <p>
            The Sakina name, website, software and content belong to Sakina or its licensors. You may use them only to use the service as
            these terms allow. What you say in a call and the data you give us remain yours; you allow us to use them as described in our
            Privacy Policy.
          </p>
        </Section>

        <Section title="11. Disclaimers and limitation of liability">
          <p>
            The AI listener can make mistakes and can misunderstand you. Do not rely on anything it says as professional advice. To the
            extent the law allows, Sakina is provided &quot;as is&quot;, and our total liability to you for any claim is limited to the
            amount you paid us in the 12 months before the claim. Nothing in these terms limits liability that cannot be limited by law, or
            takes away rights you have as a consumer under the law of the country where you live.
          </p>
        </Section>

        <Section title="12. Ending the agreement">
          <ul className={listClass}>
            <li>You can stop using Sakina, cancel your subscription or close your account at any time.</li>
            <li>We may end your account for any reason by giving you 30 days&apos; notice by e-mail.</li>
            <li>
              We may suspend or end your account immediately if you seriously break these terms, for example by using Sakina for fraud or
              harassment.
            </li>
            <li>Before your account closes, you can ask us for an export of your data; we answer such requests within 30 days.</li>
          </ul>
        </Section>

        <Section title="13. Changes to these terms">
          <p>
            We may update these terms. We show the date of the latest version at the top of this page, and we tell subscribers and business
            owners by e-mail at least 30 days before a material change takes effect. If you do not agree with a change, you can cancel
            before it applies.
          </p>
        </Section>

        <Section title="14. Contact">
          <p>
            Questions about these terms:{" "}
            <a className={linkClass} href="mailto:support@sakina.app">
              support@sakina.app
            </a>{" "}
            or our{" "}
            <Link className={linkClass} to="/contact">
              contact page
            </Link>
            .
          </p>
        </Section>
      </div>
    </StaticPage>
  );
}
