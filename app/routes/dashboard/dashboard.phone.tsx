import { data, redirect } from "react-router";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/dashboard.phone";
import { NotSignedIn } from "~/features/business/dashboard/not-signed-in";
import { PhoneNumberPanel } from "~/features/business/dashboard/phone-number";
import { ownerForAction, ownerForPage, ownerTitle } from "~/features/business/owner.server";
import { handlePhoneNumberAction, loadPhoneNumberPage } from "~/features/business/phone-number.server";
import { OwnerShell, OwnerStatus } from "~/ui/shell/owner-shell";
import type { ShellHandle } from "~/ui/shell/shell";

export const handle: ShellHandle = { shell: "owner" };

/** The business's own phone number: connect one of the account's numbers, the receptionist's settings, forwarding. */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const gate = await ownerForPage(context, request, url);
  if ("refused" in gate) return gate.refused;
  const { owner } = gate;
  const page = await loadPhoneNumberPage(owner, url);
  return { kind: "owner" as const, title: ownerTitle(owner, owner.t("phoneNumber.title")), shell: owner.shell, page };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

/** A saved change redirects to the page with its confirmation; a refused one is answered 400 with the errors beside the fields. */
export async function action({ request, context }: Route.ActionArgs) {
  const owner = await ownerForAction(context, request);
  const result = await handlePhoneNumberAction(owner, await request.formData());
  if (result.ok) return redirect(`/dashboard/phone?done=${result.done}`);
  return data(result, { status: 400 });
}

export default function Phone({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  if (loaderData.kind === "invalid") return <NotSignedIn redirectTo="/dashboard/phone" />;
  return (
    <OwnerShell shell={loaderData.shell} current="phone">
      {/* A refused change answers at the address of the last saved one: its confirmation would contradict the errors. */}
      <OwnerStatus message={actionData && !actionData.ok ? null : loaderData.page.message} />
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">{t("phoneNumber.title")}</h1>
      <p className="mt-1 text-sm text-slate-700">{t("phoneNumber.intro")}</p>
      <PhoneNumberPanel page={loaderData.page} actionData={actionData && "intent" in actionData ? actionData : undefined} />
    </OwnerShell>
  );
}
