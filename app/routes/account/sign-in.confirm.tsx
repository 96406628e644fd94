import { redirect } from "react-router";
import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/sign-in.confirm";
import { consumeEmailToken, peekEmailToken } from "#models/email-tokens";
import { findSubscriber } from "#models/subscribers";
import { commitSubscriberLogin } from "~/features/auth/auth.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";
import { redirectWithToast } from "~/platform/http/toast.server";
import { tIsolated } from "~/ui/bidi";
import { Button, buttonClass } from "~/ui/form/button";
import { Card } from "~/ui/card";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { FocusHeading } from "~/ui/form/focus";

const params = (url: URL) => ({
  token: (url.searchParams.get("token") ?? "").slice(0, 100),
  email: (url.searchParams.get("email") ?? "").slice(0, 254).toLowerCase(),
});

/**
 * The magic link. Opening it (as a mail scanner's preview does) only shows a button; the token is
 * used by the POST that button sends, once, within 15 minutes. For an unfinished signup it leads
 * on to the card step.
 */
export async function loader({ url, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const { token, email } = params(url);
  const valid = Boolean(token && email && (await peekEmailToken(services.db, "sign_in", token, email)));
  return { title: `${valid ? t("subscribe.signIn.confirmTitle") : t("subscribe.signIn.badLinkTitle")} · Sakina`, valid, email };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export async function action({ request, url, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const { token, email } = params(url);
  const used = token && email ? await consumeEmailToken(services.db, "sign_in", token, email) : null;
  const subscriber = used?.subscriberId ? await findSubscriber(services.db, used.subscriberId) : null;
  if (!subscriber) throw redirect(url.pathname + url.search);
  if (subscriber.status === "incomplete") {
    // The address's owner takes the unfinished signup back: whoever started it with their e-mail
    // is signed out of it before any card makes it an account (ADR 0018).
    const cookie = await commitSubscriberLogin(services, subscriber.id, request, { only: true });
    return redirect("/subscribe?step=payment", { headers: { "Set-Cookie": cookie } });
  }
  const cookie = await commitSubscriberLogin(services, subscriber.id, request);
  const response = await redirectWithToast(services, `/dashboard?userId=${subscriber.id}`, {
    title: t("subscribe.signIn.signedIn"),
    type: "success",
  });
  response.headers.append("Set-Cookie", cookie);
  return response;
}

export default function SignInConfirm({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <div className="mx-auto max-w-md px-4 py-12 sm:py-16">
      {loaderData.valid ? (
        <Card>
          <FocusHeading level={1} className="text-2xl font-semibold text-slate-900">
            {t("subscribe.signIn.confirmTitle")}
          </FocusHeading>
          <p className="mt-2 text-slate-700">{tIsolated(t, "subscribe.signIn.confirmBody", { email: loaderData.email })}</p>
          <Form method="post" noValidate className="mt-5">
            <AuthenticityTokenInput />
            <Button type="submit" className="w-full">
              {t("subscribe.signIn.confirmButton")}
            </Button>
          </Form>
        </Card>
      ) : (
        <Card>
          <FocusHeading level={1} className="text-2xl font-semibold text-slate-900">
            {t("subscribe.signIn.badLinkTitle")}
          </FocusHeading>
          <p className="mt-2 text-slate-700">{t("subscribe.signIn.badLinkBody")}</p>
          <Link to="/sign-in" className={`${buttonClass()} mt-5`}>
            {t("subscribe.signIn.newLink")}
          </Link>
        </Card>
      )}
    </div>
  );
}
