import { data, redirect } from "react-router";
import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/login.second-factor";
import { findAccountById } from "#models/accounts";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Button, buttonClass } from "~/ui/form/button";
import { Field } from "~/ui/form/field";
import { ErrorSummary, PageTitle } from "~/ui/form/error-summary";
import { FocusHeading } from "~/ui/form/focus";
import { safeRedirect } from "~/lib/safe-redirect";
import { getSignedIn } from "~/features/auth/auth.server";
import { enrolmentSecret, verifySecondFactor } from "~/features/admin/second-factor.server";
import { servicesContext } from "~/platform/context";
import { SignedInFrame } from "~/features/business/dashboard/signed-in-frame";
import { accountFrame } from "~/features/business/owner.server";
import { signedInShell, type ShellHandle } from "~/ui/shell/shell";

export const handle: ShellHandle = { shell: signedInShell };
import { getT } from "~/platform/i18n.server";

/**
 * An admin's second step after the password: enrol an authenticator app the first time, then
 * type its code (or a recovery code) at every sign-in. Anyone but a signed-in admin gets 404.
 */
async function signedInAdmin(context: Route.LoaderArgs["context"], request: Request) {
  const signedIn = await getSignedIn(context, request);
  if (!signedIn || signedIn.account.role !== "admin") throw data(null, { status: 404 });
  return signedIn;
}

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const t = getT(context);
  const signedIn = await signedInAdmin(context, request);
  const redirectTo = safeRedirect(url.searchParams.get("redirectTo"), "/admin");
  const account = signedIn.account;
  // Already passed (also right after enrolment, when this loader runs again to render the
  // recovery codes the action returned): no form, only the way on.
  const passed = signedIn.secondFactorPassed;
  const enrolment = passed || account.totpEnabledAt ? null : await enrolmentSecret(context, account);
  return {
    // The admin's own frame, without its sections until this step is passed: never the site's "Log in".
    frame: await accountFrame(context, account, { secondFactorPassed: passed }),
    redirectTo,
    passed,
    enrolment,
    title: `${t(enrolment ? "admin.twoFactor.enrolTitle" : "admin.twoFactor.verifyTitle")} · Sakina`,
  };
}

export const headers: Route.HeadersFunction = ({ actionHeaders }) => {
  const retryAfter = actionHeaders.get("Retry-After");
  return retryAfter ? { "Retry-After": retryAfter } : new Headers();
};

export async function action({ request, context }: Route.ActionArgs) {
  const t = getT(context);
  const signedIn = await signedInAdmin(context, request);
  const form = await request.formData();
  const redirectTo = safeRedirect(form.get("redirectTo"), "/admin");
  if (signedIn.secondFactorPassed) throw redirect(redirectTo);
  // Read afresh: the enrolment secret was written after the session's account was loaded.
  const account = (await findAccountById(context.get(servicesContext).db, signedIn.account.id)) ?? signedIn.account;
  const code = String(form.get("code") ?? "");
  if (!code.trim()) return data({ error: t("admin.twoFactor.codeRequired"), recoveryCodes: null }, { status: 400 });
  const result = await verifySecondFactor(context, request, account, code);
  if (!result.ok) {
    return result.reason === "wait"
      ? data(
          { error: t("common.tooManyRequests", { minutes: result.retryAfterMinutes }), recoveryCodes: null },
          { status: 429, headers: { "Retry-After": String(result.retryAfterSeconds) } },
        )
      : data({ error: t("admin.twoFactor.codeInvalid"), recoveryCodes: null }, { status: 400 });
  }
  // A new enrolment shows its recovery codes once, on this answer; a sign-in goes straight on.
  if (result.recoveryCodes) return { error: null, recoveryCodes: result.recoveryCodes };
  return redirect(redirectTo);
}

export default function SecondFactor(props: Route.ComponentProps) {
  return (
    <SignedInFrame frame={props.loaderData.frame}>
      <SecondFactorPage {...props} />
    </SignedInFrame>
  );
}

function SecondFactorPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  if (actionData?.recoveryCodes) {
    return (
      <div className="mx-auto max-w-md py-6">
        <PageTitle title={`${t("admin.twoFactor.codesTitle")} · Sakina`} />
        <FocusHeading level={1} className="text-3xl font-semibold tracking-tight text-slate-900">
          {t("admin.twoFactor.codesTitle")}
        </FocusHeading>
        <p className="mt-2 text-slate-700">{t("admin.twoFactor.codesIntro")}</p>
        <ul
          className="mt-6 grid grid-cols-2 gap-2 rounded-2xl border border-slate-200 bg-white p-6 font-mono shadow-sm"
          dir="ltr"
          data-testid="recovery-codes"
        >
          {actionData.recoveryCodes.map((code) => (
            <li key={code}>{code}</li>
          ))}
        </ul>
        <Link to={loaderData.redirectTo} className={`${buttonClass()} mt-6 w-full`}>
          {t("admin.twoFactor.continue")}
        </Link>
      </div>
    );
  }
  if (loaderData.passed) {
    return (
      <div className="mx-auto max-w-md py-6">
        <PageTitle title={loaderData.title} />
        <FocusHeading level={1} className="text-3xl font-semibold tracking-tight text-slate-900">
          {t("admin.twoFactor.verifyTitle")}
        </FocusHeading>
        <Link to={loaderData.redirectTo} className={`${buttonClass()} mt-6 w-full`}>
          {t("admin.twoFactor.continue")}
        </Link>
      </div>
    );
  }
  const { enrolment } = loaderData;
  const error = actionData?.error ?? null;
  return (
    <div className="mx-auto max-w-md py-6">
      <PageTitle title={loaderData.title} error={Boolean(error)} />
      <FocusHeading level={1} className="text-3xl font-semibold tracking-tight text-slate-900">
        {t(enrolment ? "admin.twoFactor.enrolTitle" : "admin.twoFactor.verifyTitle")}
      </FocusHeading>
      <p className="mt-2 text-slate-700">{t(enrolment ? "admin.twoFactor.enrolIntro" : "admin.twoFactor.verifyIntro")}</p>
      {enrolment ? (
        <dl className="mt-6 space-y-3 rounded-2xl border border-slate-200 bg-white p-6 text-sm shadow-sm">
          <div>
            <dt className="font-medium text-slate-800">{t("admin.twoFactor.qr")}</dt>
            <dd className="mt-1">
              <p className="text-slate-700">{t("admin.twoFactor.qrHint")}</p>
              {/* The SVG is drawn on the server by the qrcode library from the otpauth URI: markup of
                  our own making, no user input in it. */}
              <div
                role="img"
                aria-label={t("admin.twoFactor.qrLabel")}
                className="mt-2 size-48 bg-white [&>svg]:size-full"
                data-testid="totp-qr"
                dangerouslySetInnerHTML={{ __html: enrolment.qrSvg }}
              />
            </dd>
          </div>
          <div>
            <dt className="font-medium text-slate-800">{t("admin.twoFactor.secret")}</dt>
            <dd className="mt-1 break-all font-mono text-base text-slate-900" dir="ltr" data-testid="totp-secret">
              {enrolment.secret}
            </dd>
          </div>
          <div>
            <dt className="font-medium text-slate-800">{t("admin.twoFactor.uri")}</dt>
            <dd className="mt-1 break-all font-mono text-slate-700" dir="ltr">
              {enrolment.uri}
            </dd>
          </div>
        </dl>
      ) : null}
      <Form method="post" noValidate className="mt-6 space-y-5 rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
        <AuthenticityTokenInput />
        <input type="hidden" name="redirectTo" value={loaderData.redirectTo} />
        <ErrorSummary problems={error ? [{ id: "second-factor-code", message: error }] : []} />
        <Field
          label={t("admin.twoFactor.code")}
          hint={t(enrolment ? "admin.twoFactor.codeHint" : "admin.twoFactor.codeOrRecoveryHint")}
          id="second-factor-code"
          name="code"
          type="text"
          dir="ltr"
          inputMode={enrolment ? "numeric" : "text"}
          autoComplete="one-time-code"
          required
          errors={error ? [error] : null}
        />
        <Button type="submit" className="w-full">
          {t(enrolment ? "admin.twoFactor.enrolButton" : "admin.twoFactor.verifyButton")}
        </Button>
      </Form>
    </div>
  );
}
