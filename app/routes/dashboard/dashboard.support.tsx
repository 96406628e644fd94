import { Form } from "~/ui/link";
import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect, useNavigation } from "react-router";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/dashboard.support";
import { isPriority, openSupportTicket, supportTicketAllowance } from "~/features/admin/support.server";
import { MESSAGE_MAX, SUBJECT_MAX, supportSchema } from "~/features/admin/support-schema";
import { NotSignedIn } from "~/features/business/dashboard/not-signed-in";
import { ownerForAction, ownerForPage, ownerTitle } from "~/features/business/owner.server";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Button } from "~/ui/form/button";
import { ErrorSummary, problemsOf } from "~/ui/form/error-summary";
import { Field, TextareaField } from "~/ui/form/field";
import { OwnerShell, OwnerStatus } from "~/ui/shell/owner-shell";
import type { ShellHandle } from "~/ui/shell/shell";

export const handle: ShellHandle = { shell: "owner" };

/** The owner's support form: a ticket the admins see in /admin, priority on the monthly plan. */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const gate = await ownerForPage(context, request, url);
  if ("refused" in gate) return gate.refused;
  const { owner } = gate;
  const sent = url.searchParams.get("sent") === "1";
  return {
    kind: "owner" as const,
    title: ownerTitle(owner, owner.t("support.title")),
    shell: owner.shell,
    email: owner.account.email,
    priority: isPriority(owner),
    message: sent ? owner.t("support.sent") : null,
  };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export async function action({ request, context }: Route.ActionArgs) {
  const owner = await ownerForAction(context, request);
  const submission = parseWithZod(await request.formData(), { schema: supportSchema(owner.t) });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const exceeded = await supportTicketAllowance(context, owner);
  if (exceeded) {
    const formErrors = [owner.t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes })];
    return data(submission.reply({ formErrors }), { status: 429, headers: { "Retry-After": String(exceeded.retryAfterSeconds) } });
  }
  await openSupportTicket(owner, submission.value);
  return redirect("/dashboard/support?sent=1");
}

export default function Support({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const [form, fields] = useForm({
    id: "support",
    lastResult: navigation.state === "idle" ? actionData : null,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: supportSchema(t) }),
  });
  if (loaderData.kind === "invalid") return <NotSignedIn redirectTo="/dashboard/support" />;
  return (
    <OwnerShell shell={loaderData.shell} current="support">
      <OwnerStatus message={loaderData.message} />
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">{t("support.title")}</h1>
      <p className="mt-1 text-sm text-slate-700">{t("support.intro", { email: loaderData.email })}</p>
      {loaderData.priority ? <p className="mt-1 text-sm font-medium text-teal-900">{t("support.priority")}</p> : null}
      <Form
        method="post"
        {...getFormProps(form)}
        noValidate
        className="mt-6 max-w-2xl space-y-5 rounded-2xl border border-slate-200 bg-white p-6 shadow-sm"
      >
        <AuthenticityTokenInput />
        <ErrorSummary problems={problemsOf([fields.subject, fields.message])} formErrors={form.errors ?? []} />
        <Field
          label={t("support.subject")}
          id={fields.subject.id}
          name={fields.subject.name}
          defaultValue={fields.subject.initialValue}
          maxLength={SUBJECT_MAX}
          required
          errors={fields.subject.errors}
        />
        <TextareaField
          label={t("support.message")}
          id={fields.message.id}
          name={fields.message.name}
          defaultValue={fields.message.initialValue}
          rows={6}
          maxLength={MESSAGE_MAX}
          required
          errors={fields.message.errors}
        />
        <Button type="submit">{t("support.send")}</Button>
      </Form>
    </OwnerShell>
  );
}
