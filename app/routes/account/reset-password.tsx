import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect, useNavigation } from "react-router";
import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/reset-password";
import { findAccountById } from "#models/accounts";
import { consumeEmailToken, peekEmailToken } from "#models/email-tokens";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { buttonClass } from "~/ui/form/button";
import { NewPasswordFields } from "~/features/auth/new-password-fields";
import { ErrorSummary, PageTitle, problemsOf } from "~/ui/form/error-summary";
import { FocusHeading } from "~/ui/form/focus";
import { secondFactorPath, setPasswordAndSignIn } from "~/features/auth/auth.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";
import { newPasswordSchema } from "~/features/auth/password-schema";
import { hashPassword } from "~/features/auth/passwords.server";
import { toastHeader } from "~/platform/http/toast.server";

export async function loader({ url, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const token = url.searchParams.get("token") ?? "";
  const email = url.searchParams.get("email") ?? "";
  const valid = Boolean(token && email && (await peekEmailToken(services.db, "reset_password", token, email)));
  return { token, email, valid, title: `${t("reset.title")} · Sakina` };
}

export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const formData = await request.formData();
  const submission = parseWithZod(formData, { schema: newPasswordSchema(t) });
  if (submission.status !== "success") return data(submission.reply({ hideFields: ["password", "confirm"] }), { status: 400 });
  const row = await consumeEmailToken(
    services.db,
    "reset_password",
    String(formData.get("token") ?? ""),
    String(formData.get("email") ?? ""),
  );
  const account = row?.accountId ? await findAccountById(services.db, row.accountId) : null;
  if (!account) {
    return data(submission.reply({ formErrors: [t("reset.invalid")], hideFields: ["password", "confirm"] }), { status: 400 });
  }
  // Every session of the account ends (whoever had the old password is out); this browser signs in afresh.
  const headers = new Headers({
    "Set-Cookie": await setPasswordAndSignIn(services, account.id, await hashPassword(submission.value.password)),
  });
  headers.append("Set-Cookie", await toastHeader(services, { type: "success", title: t("password.changed") }));
  // A new admin's first password leads on to enrolling the second factor.
  return redirect(account.role === "admin" ? secondFactorPath("/admin") : "/dashboard", { headers });
}

export default function ResetPassword({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const [form, fields] = useForm({
    id: "reset-password",
    lastResult: navigation.state === "idle" ? actionData : null,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: newPasswordSchema(t) }),
  });
  const problems = problemsOf([fields.password, fields.confirm]);
  if (!loaderData.valid) {
    return (
      <div className="mx-auto max-w-md px-4 py-12 sm:py-16">
        <PageTitle title={loaderData.title} />
        <FocusHeading level={1} className="text-3xl font-semibold tracking-tight text-slate-900">
          {t("reset.title")}
        </FocusHeading>
        <p role="alert" className="mt-4 text-slate-700">
          {t("reset.invalid")}
        </p>
        <Link to="/forgot-password" className={`${buttonClass()} mt-6`}>
          {t("reset.requestNew")}
        </Link>
      </div>
    );
  }
  return (
    <div className="mx-auto max-w-md px-4 py-12 sm:py-16">
      <PageTitle title={loaderData.title} error={problems.length > 0 || Boolean(form.errors?.length)} />
      <FocusHeading level={1} className="text-3xl font-semibold tracking-tight text-slate-900">
        {t("reset.title")}
      </FocusHeading>
      <p className="mt-2 text-slate-700">{t("reset.intro")}</p>
      <Form
        method="post"
        {...getFormProps(form)}
        noValidate
        className="mt-8 space-y-5 rounded-2xl border border-slate-200 bg-white p-6 shadow-sm"
      >
        <AuthenticityTokenInput />
        <input type="hidden" name="token" value={loaderData.token} />
        <input type="hidden" name="email" value={loaderData.email} />
        <ErrorSummary problems={problems} formErrors={form.errors ?? []} />
        <NewPasswordFields password={fields.password} confirm={fields.confirm} />
      </Form>
    </div>
  );
}
