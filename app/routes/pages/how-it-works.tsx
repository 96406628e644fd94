import { Link } from "~/ui/link";
import type { Route } from "./+types/how-it-works";
import { CrisisNotice } from "~/ui/crisis-notice";
import { ListeningIllustration } from "~/ui/illustrations";
import { StaticPage, Section } from "~/ui/shell/static-page";
import { buttonClass, linkClass } from "~/ui/form/button";

export const meta: Route.MetaFunction = () => [
  { title: "How AI emotional support works · Sakina" },
  {
    name: "description",
    content:
      "Request a call, pay $5 securely and an AI listener calls you within a minute for a private, judgment-free 10-minute conversation.",
  },
];

const listClass = "list-disc space-y-1 ps-6";

const steps = [
  {
    title: "Request a call and choose your language and voice",
    body: (
      <>
        <p>
          Enter the phone number you want us to call. Choose one of six languages (English, Arabic, Spanish, French, German or Italian) and
          whether you would like a female or a male voice. No account, no name and no e-mail address are needed: your phone number is the
          only personal detail we ask for.
        </p>
        <p>
          See the voices and the names of the AI companions on the{" "}
          <Link className={linkClass} to="/languages">
            Supported Languages
          </Link>{" "}
          page.
        </p>
      </>
    ),
  },
  {
    title: "Pay $5 securely",
    body: (
      <p>
        Check the summary (your number, the language, 10 minutes, $5.00 in total), confirm that you are 18 or older, and pay by card or
        digital wallet. Payments are processed by Stripe: your card details go straight to Stripe and Sakina never stores them.
      </p>
    ),
  },
  {
    title: "We call you within 30-60 seconds",
    body: (
      <p>
        As soon as your payment is confirmed, we place the call. It usually arrives within 30-60 seconds; when many people are calling at
        once it can take up to 2-3 minutes. Even if you close the page after paying, the call still comes.
      </p>
    ),
  },
];

export default function HowItWorksPage() {
  return (
    <StaticPage
      empathy
      illustration={<ListeningIllustration />}
      title="How AI emotional support works"
      intro={
        <p>
          Sometimes you just need someone to listen. Sakina&apos;s AI listener is available 24/7 for an anonymous, judgment-free phone
          conversation. Here is what happens, step by step.
        </p>
      }
    >
      <div className="space-y-8 text-slate-800">
        <Section title="Three simple steps">
          <ol className="space-y-4">
            {steps.map((step, index) => (
              <li key={step.title} className="flex gap-4 rounded-xl border border-slate-200 bg-white p-4 sm:p-5">
                <span
                  aria-hidden="true"
                  className="mt-0.5 flex size-9 shrink-0 items-center justify-center rounded-full bg-teal-700 font-semibold text-white"
                >
                  {index + 1}
                </span>
                <div className="space-y-2">
                  <h3 className="mt-0 text-lg font-semibold text-slate-900">
                    <span className="sr-only">Step {index + 1}: </span>
                    {step.title}
                  </h3>
                  {step.body}
                </div>
              </li>
            ))}
          </ol>
        </Section>

        <Section title="What the 10-minute call is like">
          <ul className={listClass}>
            <li>
              The AI greets you by its companion name and tells you that it is an AI listener. If the call is being recorded, it says so at
              the start.
            </li>
            <li>
              You lead the conversation. Talk about your day, something that is weighing on you, or simply how you feel. There is no right
              or wrong thing to say.
            </li>
            <li>
              The AI listens, reflects back what it hears, and offers warmth and emotional validation, without judging you or telling you
              what to do.
            </li>
            <li>You can ask it to slow down, repeat something or change the subject, and you can hang up whenever you want.</li>
            <li>The call ends automatically after 10 minutes, so you always know what you are paying for.</li>
            <li>
              Your call stays anonymous: we erase your phone number within 24 hours, and the transcript we keep has phone numbers, e-mail
              addresses and names removed. Audio recording is off by default. Read more in our{" "}
              <Link className={linkClass} to="/privacy">
                Privacy Policy
              </Link>
              .
            </li>
          </ul>
        </Section>

        <Section title="What it is not">
          <p>
            Sakina is a supportive listener, not a health service. The AI gives no medical advice or diagnosis. It is not crisis
            intervention, and it is not a substitute for therapy, counselling or any other professional care. If you use words that suggest
            you are in crisis, the AI will give you the crisis lines for your country and encourage you to contact emergency services, and
            the call is flagged for review by our team.
          </p>
          <CrisisNotice headingLevel={3} />
          <p>
            Read more about how we keep calls safe on our{" "}
            <Link className={linkClass} to="/safety">
              Safety page
            </Link>
            .
          </p>
        </Section>

        <Section title="Want regular calls?">
          <p>
            A subscription gives you scheduled calls at the time you prefer: weekly for $9.99/month, twice a week for $12.99/month or every
            two days for $14.99/month. It starts with a 7-day trial with 5 calls, and your first call is free. Once subscribed, you can have
            up to 30 calls a month, and you can cancel any time; access continues to the end of your billing period.
          </p>
          <p>
            <Link className={linkClass} to="/subscribe">
              Start a subscription with a 7-day free trial
            </Link>
            , or read the{" "}
            <Link className={linkClass} to="/faq">
              frequently asked questions
            </Link>
            .
          </p>
        </Section>

        <Section title="Ready to talk?">
          <p>Request a call now: our AI listener usually calls you within 30-60 seconds, any time of day or night.</p>
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
