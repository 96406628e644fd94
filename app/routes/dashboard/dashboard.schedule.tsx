import { Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/dashboard.schedule";
import { loadSchedule, type ScheduleData } from "~/features/business/schedule.server";
import { NotSignedIn } from "~/features/business/dashboard/not-signed-in";
import { ownerForPage, ownerTitle } from "~/features/business/owner.server";
import { OwnerShell } from "~/ui/shell/owner-shell";
import type { ShellHandle } from "~/ui/shell/shell";
import { Ltr } from "~/ui/bidi";

export const handle: ShellHandle = { shell: "owner" };

/** The owner's bookings as a day or a week (in the business's time zone), for looking ahead at a glance. */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const gate = await ownerForPage(context, request, url);
  if ("refused" in gate) return gate.refused;
  const { owner } = gate;
  const schedule = await loadSchedule(owner, url);
  return {
    kind: "owner" as const,
    title: ownerTitle(
      owner,
      `${owner.t(schedule.view === "day" ? "owner.schedule.dayTitle" : "owner.schedule.weekTitle")}: ${schedule.heading}`,
    ),
    shell: owner.shell,
    schedule,
  };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

const pill = (current: boolean) =>
  `inline-flex min-h-11 items-center rounded-lg px-3 text-sm font-medium ${
    current ? "bg-teal-700 text-white" : "border border-slate-300 bg-white text-slate-900 hover:bg-slate-50"
  }`;

export default function Schedule({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  if (loaderData.kind === "invalid") return <NotSignedIn redirectTo="/dashboard/schedule" />;
  const { schedule } = loaderData;
  return (
    <OwnerShell shell={loaderData.shell} current="bookings" here={false}>
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">
        {t(schedule.view === "day" ? "owner.schedule.dayTitle" : "owner.schedule.weekTitle")}
      </h1>
      <p className="mt-1 text-slate-700">{schedule.heading}</p>
      <ScheduleNav schedule={schedule} />
      {schedule.view === "day" ? <DayView day={schedule.days[0]!} /> : <WeekView schedule={schedule} />}
    </OwnerShell>
  );
}

function ScheduleNav({ schedule }: { schedule: ScheduleData }) {
  const { t } = useTranslation();
  const { links, view } = schedule;
  return (
    <nav aria-label={t("owner.schedule.navLabel")} className="mt-4 flex flex-wrap items-center justify-between gap-3">
      <ul className="flex flex-wrap gap-2">
        <li>
          <Link to="/dashboard" className={pill(false)}>
            {t("owner.schedule.list")}
          </Link>
        </li>
        <li>
          <Link to={links.day} className={pill(view === "day")} aria-current={view === "day" ? "page" : undefined}>
            {t("owner.schedule.day")}
          </Link>
        </li>
        <li>
          <Link to={links.week} className={pill(view === "week")} aria-current={view === "week" ? "page" : undefined}>
            {t("owner.schedule.week")}
          </Link>
        </li>
      </ul>
      <ul className="flex flex-wrap gap-2">
        <li>
          <Link to={links.before} className={pill(false)}>
            {t(view === "day" ? "owner.schedule.dayBefore" : "owner.schedule.weekBefore")}
          </Link>
        </li>
        {links.today ? (
          <li>
            <Link to={links.today} className={pill(false)}>
              {t("owner.schedule.today")}
            </Link>
          </li>
        ) : null}
        <li>
          <Link to={links.after} className={pill(false)}>
            {t(view === "day" ? "owner.schedule.dayAfter" : "owner.schedule.weekAfter")}
          </Link>
        </li>
      </ul>
    </nav>
  );
}

type Day = ScheduleData["days"][number];

function BookingItem({ booking }: { booking: Day["bookings"][number] }) {
  const { t } = useTranslation();
  return (
    <li className="rounded-lg border border-slate-200 bg-white p-2 text-sm shadow-sm">
      <Link to={`/dashboard/bookings/${booking.id}`} className="block rounded underline-offset-2 hover:underline">
        <span className="font-semibold text-slate-900">
          <time dateTime={booking.startIso}>{booking.start}</time>–{booking.end}
        </span>{" "}
        <span className="text-slate-800">
          {/* A neutral separator: a Latin comma between two isolates lands on the wrong side in Arabic. */}
          <bdi>{booking.serviceName}</bdi> · <bdi>{booking.customerName}</bdi>
        </span>
      </Link>
      <p className="mt-0.5 text-xs text-slate-600">
        {booking.status === "confirmed" ? null : <span>{booking.statusLabel} · </span>}
        {t("owner.schedule.reference")} <Ltr>{booking.reference}</Ltr>
      </p>
    </li>
  );
}

function DayView({ day }: { day: Day }) {
  const { t } = useTranslation();
  return (
    <section aria-labelledby="schedule-day" className="mt-6">
      <h2 id="schedule-day" className="text-lg font-semibold text-slate-900">
        {day.label}
        {day.today ? <span className="ms-2 text-sm font-normal text-teal-800">({t("owner.schedule.todayMark")})</span> : null}
      </h2>
      {day.bookings.length === 0 ? (
        <p className="mt-2 text-slate-700">{t("owner.schedule.noBookings")}</p>
      ) : (
        <ul className="mt-3 grid gap-2">
          {day.bookings.map((booking) => (
            <BookingItem key={booking.id} booking={booking} />
          ))}
        </ul>
      )}
    </section>
  );
}

function WeekView({ schedule }: { schedule: ScheduleData }) {
  const { t } = useTranslation();
  return (
    <div className="mt-6 grid gap-3 md:grid-cols-7" data-week>
      {schedule.days.map((day) => (
        <section
          key={day.date}
          aria-labelledby={`day-${day.date}`}
          className={`min-w-0 rounded-xl border p-2 ${day.today ? "border-teal-700 bg-teal-50" : "border-slate-200 bg-slate-50"}`}
        >
          <h2 id={`day-${day.date}`} className="text-sm font-semibold text-slate-900">
            <Link to={day.dayHref} className="underline underline-offset-2">
              {day.label}
            </Link>
            {day.today ? <span className="sr-only"> ({t("owner.schedule.todayMark")})</span> : null}
          </h2>
          {day.bookings.length === 0 ? (
            <p className="mt-1 text-xs text-slate-600">{t("owner.schedule.none")}</p>
          ) : (
            <ul className="mt-2 grid gap-2">
              {day.bookings.map((booking) => (
                <BookingItem key={booking.id} booking={booking} />
              ))}
            </ul>
          )}
        </section>
      ))}
    </div>
  );
}
