import { Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import { buttonClass } from "~/ui/form/button";
import { OWNER_CONTENT_ID } from "~/ui/shell/owner-shell";

/** What a page of the owner's app shows to anyone who is not signed in as an owner. */
export function NotSignedIn({ redirectTo }: { redirectTo: string }) {
  const { t } = useTranslation();
  return (
    // Drawn in the owner's frame without its tabs: the skip link of that frame still lands here.
    <div id={OWNER_CONTENT_ID} tabIndex={-1} className="mx-auto max-w-lg px-4 py-16 text-center focus:outline-none">
      <h1 className="text-2xl font-semibold text-slate-900">{t("dashboard.invalidTitle")}</h1>
      <p className="mt-3 text-slate-700">{t("dashboard.invalidBody")}</p>
      <div className="mt-6 flex flex-wrap justify-center gap-3">
        <Link to={`/login?redirectTo=${encodeURIComponent(redirectTo)}`} className={buttonClass()}>
          {t("nav.login")}
        </Link>
        <Link to="/" className={buttonClass("secondary")}>
          {t("common.backToHome")}
        </Link>
      </div>
    </div>
  );
}
