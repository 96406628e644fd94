import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/telephony";
import { findBusinessById } from "#models/businesses";
import { requireAccount } from "~/features/auth/auth.server";
import { loadCallCentre, placeTestCall } from "~/features/business/call-centre.server";
import { CallCentre } from "~/features/business/dashboard/call-centre";
import { SignedInFrame } from "~/features/business/dashboard/signed-in-frame";
import { accountFrame } from "~/features/business/owner.server";
import { signedInShell, type ShellHandle } from "~/ui/shell/shell";
import { servicesContext } from "~/platform/context";
import { getT, getLocale } from "~/platform/i18n.server";
import { redirectWithToast } from "~/platform/http/toast.server";

export const handle: ShellHandle = { shell: signedInShell };

/**
 * The control centre of any signed-in account (an admin sees every call): a test call, recent
 * calls with live status, and the provider in use. An owner finds the same under Calls in the
 * owner's app (/dashboard/calls).
 */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const account = await requireAccount(context, request, url);
  const t = getT(context);
  // An owner reads the times of the shop, as on the owner's calls page; an admin without a business, UTC.
  const business = account.businessId ? await findBusinessById(services.db, account.businessId) : null;
  return {
    title: `${t("telephony.title")} · Sakina`,
    frame: await accountFrame(context, account),
    centre: await loadCallCentre(services, t, getLocale(context), account, business?.timeZone ?? "UTC"),
  };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export async function action({ request, url, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const account = await requireAccount(context, request, url);
  const t = getT(context);
  const typed = String((await request.formData()).get("to") ?? "");
  const refused = await placeTestCall(services, t, context, account, typed);
  if (refused) return refused;
  return redirectWithToast(services, "/telephony", { type: "success", title: t("demo.startedTitle"), description: t("demo.startedBody") });
}

export default function Telephony({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { frame } = loaderData;
  return (
    <SignedInFrame frame={frame} current="calls">
      <div className={frame ? undefined : "mx-auto max-w-5xl px-4 py-10"}>
        <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">{t("telephony.title")}</h1>
        <CallCentre data={loaderData.centre} reply={actionData} />
      </div>
    </SignedInFrame>
  );
}
