import { Form } from "~/ui/link";
import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { TFunction } from "i18next";
import { data, redirect, useNavigation } from "react-router";
import { useTranslation } from "~/ui/translation";
import { z } from "zod";
import type { Route } from "./+types/change-password";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Field } from "~/ui/form/field";
import { NewPasswordFields } from "~/features/auth/new-password-fields";
import { ErrorSummary, PageTitle, problemsOf } from "~/ui/form/error-summary";
import { FocusHeading } from "~/ui/form/focus";
import { safeRedirect } from "~/lib/safe-redirect";
import { requireAccount, setPasswordAndSignIn } from "~/features/auth/auth.server";
import { servicesContext } from "~/platform/context";
import { SignedInFrame } from "~/features/business/dashboard/signed-in-frame";
import { accountFrame } from "~/features/business/owner.server";
import { signedInShell, type ShellHandle } from "~/ui/shell/shell";

export const handle: ShellHandle = { shell: signedInShell };
import { getT } from "~/platform/i18n.server";
import { MIN_PASSWORD } from "~/features/auth/password-schema";
import { hashPassword, verifyPassword } from "~/features/auth/passwords.server";
import { toastHeader } from "~/platform/http/toast.server";

function schema(t: TFunction, needsCurrent: boolean) {
  return z
    .object({
      current: needsCurrent ? z.string(t("password.currentRequired")) : z.string().optional(),
      password: z
        .string(t("password.required"))
        .min(MIN_PASSWORD, t("password.tooShort", { min: MIN_PASSWORD }))
        .max(200, t("form.tooLong", { max: 200 })),
      confirm: z.string(t("password.confirmRequired")),
    })
    .refine((v) => v.password === v.confirm, { message: t("password.mismatch"), path: ["confirm"] });
}

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const account = await requireAccount(context, request, url, { allowTemporaryPassword: true });
  const t = getT(context);
  return {
    frame: await accountFrame(context, account),
    forced: account.mustChangePassword,
    redirectTo: safeRedirect(url.searchParams.get("redirectTo"), "/dashboard"),
    title: `${t("password.changeTitle")} · Sakina`,
  };
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const account = await requireAccount(context, request, url, { allowTemporaryPassword: true });
  const t = getT(context);
  const formData = await request.formData();
  const submission = parseWithZod(formData, { schema: schema(t, !account.mustChangePassword) });
  if (submission.status !== "success") return data(submission.reply({ hideFields: ["password", "confirm", "current"] }), { status: 400 });
  const { current, password } = submission.value;
  if (!account.mustChangePassword && !(await verifyPassword(current ?? "", account.passwordHash))) {
    return data(
      submission.reply({ fieldErrors: { current: [t("password.currentWrong")] }, hideFields: ["password", "confirm", "current"] }),
      { status: 400 },
    );
  }
  if (await verifyPassword(password, account.passwordHash)) {
    return data(
      submission.reply({ fieldErrors: { password: [t("password.sameAsOld")] }, hideFields: ["password", "confirm", "current"] }),
      { status: 400 },
    );
  }
  // Every other browser is signed out; this one continues with a fresh session.
  const headers = new Headers({ "Set-Cookie": await setPasswordAndSignIn(services, account.id, await hashPassword(password)) });
  headers.append("Set-Cookie", await toastHeader(services, { type: "success", title: t("password.changed") }));
  return redirect(safeRedirect(formData.get("redirectTo"), "/dashboard"), { headers });
}

export default function ChangePassword({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const [form, fields] = useForm({
    id: "change-password",
    lastResult: navigation.state === "idle" ? actionData : null,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: schema(t, !loaderData.forced) }),
  });
  const problems = problemsOf(loaderData.forced ? [fields.password, fields.confirm] : [fields.current, fields.password, fields.confirm]);
  return (
    <SignedInFrame frame={loaderData.frame} current="settings">
      <div className={loaderData.frame ? "mx-auto max-w-md py-6" : "mx-auto max-w-md px-4 py-12 sm:py-16"}>
        <PageTitle title={loaderData.title} error={problems.length > 0 || Boolean(form.errors?.length)} />
        <FocusHeading level={1} className="text-3xl font-semibold tracking-tight text-slate-900">
          {t("password.changeTitle")}
        </FocusHeading>
        <p className="mt-2 text-slate-700">{loaderData.forced ? t("password.forcedIntro") : t("password.changeIntro")}</p>
        <Form
          method="post"
          {...getFormProps(form)}
          noValidate
          className="mt-8 space-y-5 rounded-2xl border border-slate-200 bg-white p-6 shadow-sm"
        >
          <AuthenticityTokenInput />
          <input type="hidden" name="redirectTo" value={loaderData.redirectTo} />
          <ErrorSummary problems={problems} formErrors={form.errors ?? []} />
          {loaderData.forced ? null : (
            <Field
              label={t("password.current")}
              id={fields.current.id}
              name={fields.current.name}
              type="password"
              autoComplete="current-password"
              required
              errors={fields.current.errors}
            />
          )}
          <NewPasswordFields password={fields.password} confirm={fields.confirm} />
        </Form>
      </div>
    </SignedInFrame>
  );
}
