import type { ReactNode } from "react";
import { Link } from "~/ui/link";
import type { Route } from "./+types/faq";
import { CrisisNotice } from "~/ui/crisis-notice";
import { StaticPage, Section } from "~/ui/shell/static-page";
import { buttonClass, linkClass } from "~/ui/form/button";

export const meta: Route.MetaFunction = () => [
  { title: "Frequently asked questions · Sakina" },
  {
    name: "description",
    content: "Answers about Sakina's AI support calls, languages, pricing, privacy, safety, business bookings and accessibility.",
  },
];

const listClass = "list-disc space-y-1 ps-6";

type Question = { question: string; answer: ReactNode };
type Category = { id: string; title: string; questions: Question[] };

const categories: Category[] = [
  {
    id: "getting-started",
    title: "Getting started",
    questions: [
      {
        question: "What is Sakina?",
        answer: (
          <p>
            Sakina is an AI listener you can talk to on the phone, 24 hours a day, 7 days a week. It offers a private, judgment-free
            conversation and emotional validation when you need someone to listen. We also offer businesses an AI concierge that confirms
            appointment bookings by phone.
          </p>
        ),
      },
      {
        question: "How do I request a call?",
        answer: (
          <p>
            On the{" "}
            <Link className={linkClass} to="/">
              home page
            </Link>
            , enter your phone number, choose your language and a female or male voice, then pay $5. We call you within 30-60 seconds, or up
            to 2-3 minutes when demand is high. The{" "}
            <Link className={linkClass} to="/how-it-works">
              How it works
            </Link>{" "}
            page walks through each step.
          </p>
        ),
      },
      {
        question: "Do I need an account?",
        answer: (
          <p>
            No. A single call is anonymous: your phone number is the only personal detail we need. You only create an account, with your
            name, e-mail address and phone number, if you choose a subscription.
          </p>
        ),
      },
      {
        question: "Who can use Sakina?",
        answer: <p>Adults aged 18 or older. We ask you to confirm your age before every paid call.</p>,
      },
    ],
  },
  {
    id: "calls-and-languages",
    title: "Calls and languages",
    questions: [
      {
        question: "How long does a call last?",
        answer: <p>Up to 10 minutes. The call ends automatically at 10 minutes, and you can hang up earlier whenever you like.</p>,
      },
      {
        question: "How quickly will I be called?",
        answer: (
          <p>
            Usually within 30-60 seconds after your payment is confirmed. When many people are calling at once, it can take up to 2-3
            minutes. The call comes even if you close the page after paying.
          </p>
        ),
      },
      {
        question: "Which languages can I talk in?",
        answer: (
          <p>
            English, Arabic, Spanish, French, German and Italian. The{" "}
            <Link className={linkClass} to="/languages">
              Supported Languages
            </Link>{" "}
            page lists the regions, voices and AI companion names for each.
          </p>
        ),
      },
      {
        question: "Can I choose the voice?",
        answer: (
          <p>
            Yes. In every language you can choose a female or a male voice, and the AI companion introduces itself by name, for example Emma
            or James in English, or Layla or Omar in Arabic.
          </p>
        ),
      },
      {
        question: "What if my call doesn't arrive?",
        answer: (
          <p>
            Check that you entered the number correctly, with its country code. If no call has arrived after a few minutes, write to{" "}
            <a className={linkClass} href="mailto:support@sakina.app">
              support@sakina.app
            </a>{" "}
            with the time of your payment. If we could not place a call you paid for, we will place it again or refund you.
          </p>
        ),
      },
    ],
  },
  {
    id: "payments-and-pricing",
    title: "Payments and pricing",
    questions: [
      {
        question: "How much does a call cost?",
        answer: <p>$5 (USD) for one call of up to 10 minutes. There are no hidden fees.</p>,
      },
      {
        question: "What subscription plans are there?",
        answer: (
          <>
            <ul className={listClass}>
              <li>Weekly: one call a week, $9.99/month.</li>
              <li>Twice a week: $12.99/month.</li>
              <li>Every two days: $14.99/month.</li>
            </ul>
            <p>
              Every plan starts with a 7-day trial that includes 5 calls, and your first call is free. Once subscribed, you can have up to
              30 calls a month, at the time and in the time zone you prefer.
            </p>
          </>
        ),
      },
      {
        question: "How do I cancel my subscription?",
        answer: (
          <p>
            Choose &quot;Cancel subscription&quot; on your dashboard at any time. You are not charged again, and your access continues until
            the end of the billing period you have already paid for.
          </p>
        ),
      },
      {
        question: "Is my payment secure?",
        answer: (
          <p>
            Yes. Payments by card or digital wallet are processed by Stripe, a certified payment provider. Your card details go directly to
            Stripe; Sakina stores no card details.
          </p>
        ),
      },
    ],
  },
  {
    id: "privacy-and-data",
    title: "Privacy and data",
    questions: [
      {
        question: "Is my call really anonymous?",
        answer: (
          <p>
            Yes. For a single call we only need your phone number, and we erase it within 24 hours after the call. We never ask for your
            name.
          </p>
        ),
      },
      {
        question: "Are calls recorded?",
        answer: (
          <p>
            Audio recording is off by default. What we keep is a written transcript with phone numbers, e-mail addresses and names redacted.
            If recording is enabled, the AI tells you at the start of the call, and recordings are deleted after 12 months.
          </p>
        ),
      },
      {
        question: "What do you do with transcripts?",
        answer: (
          <p>
            We use redacted transcripts to check the quality of conversations and to improve our AI. We never sell them, and we never share
            them with anyone for marketing.
          </p>
        ),
      },
      {
        question: "Who else handles my data?",
        answer: (
          <p>
            Only the processors we need to run the service: Stripe for payments, Twilio to place the phone calls, and OpenAI to generate the
            AI&apos;s voice. Each may use the data only to provide its service to us.
          </p>
        ),
      },
      {
        question: "How can I get a copy of my data or have it deleted?",
        answer: (
          <p>
            E-mail{" "}
            <a className={linkClass} href="mailto:privacy@sakina.app">
              privacy@sakina.app
            </a>
            . We answer export and deletion requests within 30 days. Our{" "}
            <Link className={linkClass} to="/privacy">
              Privacy Policy
            </Link>{" "}
            has the details.
          </p>
        ),
      },
    ],
  },
  {
    id: "safety-and-crisis",
    title: "Safety and crisis",
    questions: [
      {
        question: "Is Sakina a replacement for therapy?",
        answer: (
          <p>
            No. Sakina is a supportive listener. It is not a substitute for therapy, counselling or any other professional care. If you are
            struggling, we encourage you to talk to a doctor or a mental-health professional as well.
          </p>
        ),
      },
      {
        question: "Does the AI give medical advice?",
        answer: (
          <p>
            No. The AI gives no medical advice and no diagnosis, and it will not tell you to start, stop or change any treatment or
            medication.
          </p>
        ),
      },
      {
        question: "What if I'm in crisis?",
        answer: (
          <>
            <p>Sakina is not crisis intervention. If you or someone else is in danger, contact emergency services now.</p>
            <CrisisNotice headingLevel={3} />
          </>
        ),
      },
      {
        question: "What happens if I mention self-harm during a call?",
        answer: (
          <p>
            The AI gives you the crisis lines for your country and encourages you to contact emergency services. The call is also flagged so
            that a person on our team reviews it. Read more on our{" "}
            <Link className={linkClass} to="/safety">
              Safety page
            </Link>
            .
          </p>
        ),
      },
    ],
  },
  {
    id: "for-businesses",
    title: "For businesses",
    questions: [
      {
        question: "What does Sakina do for businesses?",
        answer: (
          <p>
            You get a public booking page for your services. Every time a customer books, our AI phones them to confirm the appointment in
            their language, and your dashboard shows the booking and the outcome of the call: confirmed, cancelled, asked to reschedule or
            unreachable.
          </p>
        ),
      },
      {
        question: "How much does it cost?",
        answer: (
          <p>
            Start with $1 for 7 days, with 20 AI calls included: confirmation calls, reminder calls and calls the AI receptionist answers on
            your number. After that it is $99/month for 100 of these calls, plus $1 for each additional call.
          </p>
        ),
      },
      {
        question: "Can I try it first?",
        answer: (
          <p>
            Yes. On our{" "}
            <Link className={linkClass} to="/business">
              business page
            </Link>{" "}
            you can request a free demo call; the AI calls you within 30 seconds, with no registration.
          </p>
        ),
      },
      {
        question: "Will my customers know they are talking to an AI?",
        answer: (
          <p>
            Yes. The booking form says that an AI assistant will phone to confirm, and the AI introduces itself as your business&apos;s
            assistant. It calls only between 08:00 and 21:00 in the customer&apos;s time zone, and if a customer asks not to be called
            again, your business will not call that number again.
          </p>
        ),
      },
    ],
  },
  {
    id: "accessibility-and-technical",
    title: "Accessibility and technical",
    questions: [
      {
        question: "Does Sakina work without JavaScript?",
        answer: (
          <p>
            Yes. Pages, navigation, forms and these questions work without JavaScript. The only exception is the secure card form, which is
            provided by Stripe and needs JavaScript.
          </p>
        ),
      },
      {
        question: "Can I use Sakina with a screen reader or keyboard?",
        answer: (
          <p>
            Yes. We design to WCAG 2.1 AA, and everything can be reached with a keyboard. Our{" "}
            <Link className={linkClass} to="/accessibility">
              Accessibility
            </Link>{" "}
            page explains what we support and how to report a problem.
          </p>
        ),
      },
      {
        question: "Which phones can receive the call?",
        answer: (
          <p>
            Any phone that can receive ordinary voice calls, mobile or landline. Enter your number with its country code (for example +44
            for the United Kingdom) so that we reach the right line.
          </p>
        ),
      },
      {
        question: "Is the website available in Arabic?",
        answer: (
          <p>
            Yes. Sakina&apos;s screens are available in all six languages, and Arabic is shown right to left. Our detailed information and
            legal pages are in English.
          </p>
        ),
      },
      {
        question: "How reliable is the service?",
        answer: <p>We aim for 99.9% uptime. If something goes wrong, reports of a service disruption get a response within 4 hours.</p>,
      },
    ],
  },
];

export default function FaqPage() {
  return (
    <StaticPage
      empathy
      title="Frequently asked questions"
      intro={<p>Quick answers about calls, pricing, privacy and safety. Select a question to show its answer.</p>}
    >
      <div className="space-y-8 text-slate-800">
        <nav aria-label="Question topics">
          <ul className="flex flex-wrap gap-2">
            {categories.map((category) => (
              <li key={category.id}>
                <a
                  href={`#${category.id}`}
                  className="inline-flex rounded-full border border-slate-300 px-3 py-1 text-sm font-medium text-teal-800 underline-offset-2 hover:bg-slate-50 hover:underline focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-700"
                >
                  {category.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>

        {categories.map((category) => (
          <div key={category.id} id={category.id} className="scroll-mt-6">
            <Section title={category.title}>
              <div className="space-y-2">
                {category.questions.map((item) => (
                  <details key={item.question} className="group rounded-lg border border-slate-200 bg-white">
                    <summary className="flex cursor-pointer list-none items-center justify-between gap-4 rounded-lg px-4 py-3 font-medium text-slate-900 hover:bg-slate-50 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-700 [&::-webkit-details-marker]:hidden">
                      <span>{item.question}</span>
                      <span aria-hidden="true" className="shrink-0 text-slate-600 transition-transform group-open:rotate-180">
                        ▾
                      </span>
                    </summary>
                    <div className="space-y-3 border-t border-slate-200 px-4 py-3 text-slate-800">{item.answer}</div>
                  </details>
                ))}
              </div>
            </Section>
          </div>
        ))}

        <Section title="Still have a question?">
          <p>
            Our team is happy to help. General questions are answered within 24 hours, technical problems within 12 hours, and urgent
            matters within 2 hours.
          </p>
          <div className="flex flex-wrap gap-3">
            <Link className={buttonClass()} to="/contact">
              Contact us
            </Link>
            <Link className={buttonClass()} to="/">
              Request a call
            </Link>
          </div>
        </Section>
      </div>
    </StaticPage>
  );
}
