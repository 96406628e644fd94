import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/dashboard.booking";
import { loadBookingPage } from "~/features/business/bookings.server";
import { BookingCard } from "~/features/business/dashboard/bookings";
import { NotSignedIn } from "~/features/business/dashboard/not-signed-in";
import { ownerAction } from "~/features/business/owner-action.server";
import { ownerForPage, ownerTitle } from "~/features/business/owner.server";
import { isolatedText, tIsolated } from "~/ui/bidi";
import { parseDbId } from "~/lib/ids";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Button, linkClass } from "~/ui/form/button";
import { SelectField } from "~/ui/form/field";
import { OwnerShell, OwnerStatus } from "~/ui/shell/owner-shell";
import type { ShellHandle } from "~/ui/shell/shell";

export const handle: ShellHandle = { shell: "owner" };

/** One booking of the owner's business, with its actions and the free times it can move to. */
export async function loader({ request, url, params, context }: Route.LoaderArgs) {
  const gate = await ownerForPage(context, request, url);
  if ("refused" in gate) return gate.refused;
  const { owner } = gate;
  const page = await loadBookingPage(owner, parseDbId(params.bookingId), url);
  const title = ownerTitle(owner, owner.t("owner.booking.title", { name: isolatedText(page.booking.customerName, owner.locale) }));
  return { kind: "owner" as const, title, shell: owner.shell, ...page };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export const action = (args: Route.ActionArgs) => ownerAction(args);

export default function BookingPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  if (loaderData.kind === "invalid") return <NotSignedIn redirectTo="/dashboard" />;
  const page = loaderData;
  const here = `/dashboard/bookings/${page.booking.id}`;
  const failed = actionData && "intent" in actionData ? actionData : null;
  const fieldErrors = failed?.intent === "reschedule-booking" && "errors" in failed ? failed.errors : undefined;
  const formError = failed && "formError" in failed ? (failed.formError ?? null) : null;
  const summary = fieldErrors ? Object.values(fieldErrors).flat()[0] : null;
  return (
    <OwnerShell shell={page.shell} current="bookings" here={false}>
      <OwnerStatus message={formError ?? summary ?? null} tone="error" />
      <OwnerStatus message={page.message} />
      <p>
        <Link to="/dashboard" className={`${linkClass} text-sm`}>
          {t("owner.booking.back")}
        </Link>
      </p>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">
        {tIsolated(t, "owner.booking.title", { name: page.booking.customerName })}
      </h1>
      <div className="mt-4">
        <BookingCard booking={page.booking} returnTo={here} />
      </div>
      {page.reschedule ? (
        <section
          id="reschedule"
          aria-labelledby="reschedule-title"
          className="mt-6 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
        >
          <h2 id="reschedule-title" className="text-lg font-semibold text-slate-900">
            {t("owner.reschedule.title")}
          </h2>
          <p className="mt-1 text-sm text-slate-700">{t("owner.reschedule.intro")}</p>
          {page.reschedule.dates.length === 0 ? (
            <p className="mt-3 text-slate-700">{t("owner.reschedule.noTimes", { days: page.windowDays })}</p>
          ) : (
            <Form method="get" action={`${here}#reschedule`} className="mt-3 flex flex-wrap items-end gap-3">
              <SelectField
                id="reschedule-date"
                label={t("owner.reschedule.day")}
                name="date"
                defaultValue={page.reschedule.date ?? page.reschedule.dates[0]!.date}
                key={page.reschedule.date ?? ""}
                errors={fieldErrors?.date}
                className="min-w-60"
              >
                {page.reschedule.dates.map((d) => (
                  <option key={d.date} value={d.date}>
                    {d.label}
                  </option>
                ))}
              </SelectField>
              <Button type="submit" variant="secondary">
                {t("owner.reschedule.showTimes")}
              </Button>
            </Form>
          )}
          {page.reschedule.date ? (
            <Form method="post" noValidate action={`${here}?date=${page.reschedule.date}`} className="mt-5">
              <AuthenticityTokenInput />
              <input type="hidden" name="intent" value="reschedule-booking" />
              <input type="hidden" name="bookingId" value={page.booking.id} />
              <input type="hidden" name="date" value={page.reschedule.date} />
              <fieldset aria-describedby={fieldErrors?.time ? "reschedule-time-error" : undefined}>
                <legend className="font-medium text-slate-900">
                  {t("owner.reschedule.timesOn", { day: page.reschedule.dates.find((d) => d.date === page.reschedule!.date)?.label })}
                </legend>
                {fieldErrors?.time ? (
                  <p id="reschedule-time-error" className="mt-1 text-sm font-medium text-rose-700">
                    {fieldErrors.time[0]}
                  </p>
                ) : null}
                {page.reschedule.times.length === 0 ? (
                  <p className="mt-2 text-slate-700">{t("owner.reschedule.noTimesThatDay")}</p>
                ) : (
                  <div className="mt-2 grid grid-cols-[repeat(auto-fill,minmax(7.5rem,1fr))] gap-2">
                    {page.reschedule.times.map((time) => (
                      <label
                        key={time.value}
                        className="flex items-center justify-center gap-2 rounded-lg border border-slate-300 bg-white px-2 py-2 text-sm whitespace-nowrap has-[:checked]:border-teal-700 has-[:checked]:bg-teal-50"
                      >
                        <input type="radio" name="time" value={time.value} required className="accent-teal-700" />
                        {time.label}
                      </label>
                    ))}
                  </div>
                )}
              </fieldset>
              {page.reschedule.times.length > 0 ? (
                <>
                  <p className="mt-3 text-sm text-slate-700">
                    {page.booking.email ? t("owner.reschedule.willEmail") : t("owner.reschedule.noEmail")}
                  </p>
                  <Button type="submit" className="mt-3">
                    {t("owner.reschedule.move")}
                  </Button>
                </>
              ) : null}
            </Form>
          ) : null}
        </section>
      ) : null}
    </OwnerShell>
  );
}
