import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/dashboard.settings";
import { loadSettingsPage } from "~/features/business/dashboard.server";
import { BookingLink } from "~/features/business/dashboard/booking-link";
import { CalendarFeedPanel } from "~/features/business/dashboard/calendar-feed";
import { CalDavPanel } from "~/features/business/dashboard/caldav";
import { NotSignedIn } from "~/features/business/dashboard/not-signed-in";
import { RemindersSection, SettingsSection } from "~/features/business/dashboard/settings";
import { TextsSection } from "~/features/business/dashboard/texts-settings";
import { ownerAction } from "~/features/business/owner-action.server";
import { ownerForPage, ownerTitle } from "~/features/business/owner.server";
import { OwnerShell, OwnerStatus } from "~/ui/shell/owner-shell";
import type { ShellHandle } from "~/ui/shell/shell";

export const handle: ShellHandle = { shell: "owner" };

/** The business's details for its booking page, and how the AI confirms bookings. */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const gate = await ownerForPage(context, request, url);
  if ("refused" in gate) return gate.refused;
  const { owner } = gate;
  const page = await loadSettingsPage(owner, url);
  return { kind: "owner" as const, title: ownerTitle(owner, owner.t("settings.title")), shell: owner.shell, ...page };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export const action = (args: Route.ActionArgs) => ownerAction(args);

export default function Settings({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  if (loaderData.kind === "invalid") return <NotSignedIn redirectTo="/dashboard/settings" />;
  return (
    <OwnerShell shell={loaderData.shell} current="settings">
      <OwnerStatus message={loaderData.message} />
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">{t("settings.title")}</h1>
      <p className="mt-1 text-sm text-slate-700">{t("settings.intro")}</p>
      <BookingLink url={loaderData.shell.bookingUrl} />
      <SettingsSection business={loaderData.business} actionData={actionData && "intent" in actionData ? actionData : undefined} />
      <RemindersSection business={loaderData.business} actionData={actionData && "intent" in actionData ? actionData : undefined} />
      <TextsSection business={loaderData.business} actionData={actionData && "intent" in actionData ? actionData : undefined} />
      <CalendarFeedPanel links={loaderData.calendarFeed} />
      <CalDavPanel calendar={loaderData.calendar} actionData={actionData && "intent" in actionData ? actionData : undefined} />
    </OwnerShell>
  );
}
