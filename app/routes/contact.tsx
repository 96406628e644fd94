import { Form } from "~/ui/link";
import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { TFunction } from "i18next";
import { data, useNavigation } from "react-router";
import { useTranslation } from "~/ui/translation";
import { z } from "zod";
import type { Route } from "./+types/contact";
import { contactAcknowledgementEmail, contactReceivedEmail } from "#emails/contact";
import { saveContactMessage } from "#models/contact-messages";
import { CrisisNotice } from "~/ui/crisis-notice";
import { Localized } from "~/ui/localized";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { StaticPage, Section } from "~/ui/shell/static-page";
import { Button } from "~/ui/form/button";
import { ErrorSummary, PageTitle, problemsOf } from "~/ui/form/error-summary";
import { Field, SelectField, TextareaField } from "~/ui/form/field";
import { servicesContext } from "~/platform/context";
import { sendEmailJob } from "~/platform/data/email-jobs.server";
import { getT, getLocale } from "~/platform/i18n.server";
import { clientIp, firstExceededRule } from "~/platform/security/rate-limit.server";
import { redirectWithToast } from "~/platform/http/toast.server";
import { errorFields, log } from "~/platform/observability/log.server";

const urgencies = ["low", "normal", "high", "urgent"] as const;
const LIMITS = { subject: 200, message: 5000, email: 254 };

function contactSchema(t: TFunction) {
  return z.object({
    email: z
      .string(t("contact.emailRequired"))
      .trim()
      .max(LIMITS.email, t("contact.tooLong", { max: LIMITS.email }))
      .pipe(z.email(t("contact.emailInvalid"))),
    subject: z
      .string(t("contact.subjectRequired"))
      .trim()
      .min(1, t("contact.subjectRequired"))
      .max(LIMITS.subject, t("contact.tooLong", { max: LIMITS.subject })),
    message: z
      .string(t("contact.messageRequired"))
      .trim()
      .min(1, t("contact.messageRequired"))
      .max(LIMITS.message, t("contact.tooLong", { max: LIMITS.message })),
    urgency: z.enum(urgencies, t("contact.urgencyInvalid")).default("normal"),
  });
}

export const meta: Route.MetaFunction = () => [
  { name: "description", content: "Contact Sakina support: we answer every message by e-mail." },
];

export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const submission = parseWithZod(await request.formData(), { schema: contactSchema(t) });
  if (submission.status !== "success") {
    return data(submission.reply(), { status: 400 });
  }
  const contact = submission.value;

  // Each message also e-mails its sender, so the address is limited as well as the visitor.
  const exceeded = await firstExceededRule(context, [
    { name: "contact:ip", subject: clientIp(context), limit: 5, windowSeconds: 600 },
    { name: "contact:email", subject: contact.email, limit: 3, windowSeconds: 3600 },
  ]);
  if (exceeded) {
    const minutes = exceeded.retryAfterMinutes;
    return data(submission.reply({ formErrors: [t("common.tooManyRequests", { minutes })] }), {
      status: 429,
      headers: { "Retry-After": String(exceeded.retryAfterSeconds) },
    });
  }

  try {
    const locale = getLocale(context);
    await saveContactMessage(services.db, { ...contact, locale });
    await services.jobs.enqueue(sendEmailJob, contactReceivedEmail(t, services.env.SUPPORT_EMAIL, contact));
    await services.jobs.enqueue(sendEmailJob, contactAcknowledgementEmail(t, locale, contact));
  } catch (error) {
    log.error(errorFields(error), "Contact message could not be queued");
    return data(
      submission.reply({
        formErrors: [`${t("contact.failedTitle")}: ${t("contact.failedBody", { email: services.env.SUPPORT_EMAIL })}`],
      }),
      { status: 503 },
    );
  }

  return redirectWithToast(services, "/contact", {
    type: "success",
    title: t("contact.sentTitle"),
    description: t("contact.sentBody"),
  });
}

const responseTimes = [
  ["General questions", "24 hours"],
  ["Technical issues", "12 hours"],
  ["Service disruption", "4 hours"],
  ["Urgent matters", "2 hours"],
  ["Accessibility", "24 hours"],
] as const;

export default function ContactPage({ actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const sending = navigation.state === "submitting" && navigation.formAction === "/contact";
  const [form, fields] = useForm({
    id: "contact",
    lastResult: navigation.state === "idle" ? actionData : null,
    defaultValue: { urgency: "normal" },
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: contactSchema(t) }),
  });

  const problems = problemsOf([fields.email, fields.subject, fields.message, fields.urgency]);
  return (
    <StaticPage title="Contact" intro={<p>Questions about a call, a payment, your data or Sakina for business? Write to us.</p>}>
      <PageTitle title="Contact · Sakina" error={problems.length > 0 || Boolean(form.errors?.length)} />
      <CrisisNotice />
      <section aria-labelledby="contact-form-title" className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-8">
        <Localized>
          <h2 id="contact-form-title" className="text-xl font-semibold text-slate-900">
            {t("contact.title")}
          </h2>
          <p className="mt-1 text-slate-700">{t("contact.intro")}</p>
          <Form method="post" {...getFormProps(form)} noValidate className="mt-6 space-y-5">
            <AuthenticityTokenInput />
            <ErrorSummary problems={problems} formErrors={form.errors ?? []} />
            <Field
              label={t("contact.email")}
              id={fields.email.id}
              name={fields.email.name}
              type="email"
              autoComplete="email"
              required
              defaultValue={fields.email.initialValue}
              errors={fields.email.errors}
            />
            <Field
              label={t("contact.subject")}
              id={fields.subject.id}
              name={fields.subject.name}
              required
              maxLength={LIMITS.subject}
              defaultValue={fields.subject.initialValue}
              errors={fields.subject.errors}
            />
            <TextareaField
              label={t("contact.message")}
              id={fields.message.id}
              name={fields.message.name}
              rows={6}
              required
              maxLength={LIMITS.message}
              defaultValue={fields.message.initialValue}
              errors={fields.message.errors}
            />
            <SelectField
              label={t("contact.urgency")}
              id={fields.urgency.id}
              name={fields.urgency.name}
              defaultValue={fields.urgency.initialValue ?? "normal"}
              errors={fields.urgency.errors}
            >
              <option value="low">{t("contact.urgencyLow")}</option>
              <option value="normal">{t("contact.urgencyNormal")}</option>
              <option value="high">{t("contact.urgencyHigh")}</option>
              <option value="urgent">{t("contact.urgencyUrgent")}</option>
            </SelectField>
            <Button type="submit" disabled={sending}>
              {sending ? t("common.sending") : t("contact.send")}
            </Button>
          </Form>
        </Localized>
      </section>
      <Section title="Direct contact">
        <ul className="list-disc space-y-1 ps-6">
          <li>
            General support: <a href="mailto:support@sakina.app">support@sakina.app</a>
          </li>
          <li>
            Privacy and data requests: <a href="mailto:privacy@sakina.app">privacy@sakina.app</a>
          </li>
          <li>
            Accessibility: <a href="mailto:accessibility@sakina.app">accessibility@sakina.app</a>
          </li>
        </ul>
      </Section>
      <Section title="Response times">
        <table className="w-full text-start text-sm">
          <caption className="sr-only">How quickly we reply to each kind of message</caption>
          <thead>
            <tr className="border-b border-slate-300">
              <th scope="col" className="py-2 text-start font-semibold">
                Kind of message
              </th>
              <th scope="col" className="py-2 text-start font-semibold">
                We reply within
              </th>
            </tr>
          </thead>
          <tbody>
            {responseTimes.map(([kind, time]) => (
              <tr key={kind} className="border-b border-slate-200">
                <td className="py-2">{kind}</td>
                <td className="py-2">{time}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p>
          Looking for a quick answer? Many questions are answered in our <a href="/faq">FAQ</a>.
        </p>
      </Section>
    </StaticPage>
  );
}
