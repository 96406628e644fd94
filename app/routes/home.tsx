import { Link } from "react-router";
import { useTranslation } from "react-i18next";
import type { Route } from "./+types/home";
import { CrisisNotice } from "~/components/crisis-notice";
import { getI18n } from "~/server/i18n.server";

export function loader({ context }: Route.LoaderArgs) {
  const { t } = getI18n(context);
  return { title: `${t("meta.appName")} · ${t("home.title")}`, description: t("home.intro") };
}

export const meta: Route.MetaFunction = ({ loaderData: data }) => [
  { title: data?.title ?? "Sakina" },
  { name: "description", content: data?.description ?? "" },
];

export default function Home() {
  const { t } = useTranslation();
  const facts = [t("home.price"), t("home.duration"), t("home.languages"), t("home.anonymous")];
  const steps = [
    [t("home.stepOneTitle"), t("home.stepOneBody")],
    [t("home.stepTwoTitle"), t("home.stepTwoBody")],
    [t("home.stepThreeTitle"), t("home.stepThreeBody")],
  ] as const;
  return (
    <div className="mx-auto max-w-6xl px-4">
      <section className="py-12 sm:py-20">
        <h1 className="max-w-3xl text-4xl font-semibold tracking-tight text-slate-900 sm:text-5xl">
          {t("home.title")}
        </h1>
        <p className="mt-5 max-w-2xl text-lg text-slate-700">{t("home.intro")}</p>
        <ul className="mt-6 flex flex-wrap gap-2" aria-label={t("meta.appName")}>
          {facts.map((fact) => (
            <li key={fact} className="rounded-full bg-teal-50 px-3 py-1 text-sm font-medium text-teal-900">
              {fact}
            </li>
          ))}
        </ul>
        <p className="mt-6 max-w-2xl text-sm text-slate-600">{t("footer.notMedical")}</p>
      </section>

      <section aria-labelledby="how-title" className="py-8">
        <h2 id="how-title" className="text-2xl font-semibold text-slate-900">
          {t("home.howTitle")}
        </h2>
        <ol className="mt-6 grid gap-4 sm:grid-cols-3">
          {steps.map(([title, body], index) => (
            <li key={title} className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
              <span aria-hidden="true" className="flex h-8 w-8 items-center justify-center rounded-full bg-teal-700 font-semibold text-white">
                {index + 1}
              </span>
              <h3 className="mt-3 font-semibold text-slate-900">{title}</h3>
              <p className="mt-1 text-slate-700">{body}</p>
            </li>
          ))}
        </ol>
        <p className="mt-6">
          <Link to="/how-it-works" className="font-medium text-teal-800 underline">
            {t("home.learnMore")}
          </Link>
        </p>
      </section>

      <div className="py-8">
        <CrisisNotice />
      </div>
    </div>
  );
}
