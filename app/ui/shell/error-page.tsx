import { isRouteErrorResponse } from "react-router";
import { Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import { buttonClass } from "~/ui/form/button";

/** The page for an error no route handled: not found, forbidden, or our fault. */
export function ErrorPage({ error }: { error: unknown }) {
  const { t } = useTranslation();
  let title = t("errors.serverTitle");
  let body = t("errors.serverBody");
  if (isRouteErrorResponse(error) && error.status === 404) {
    title = t("errors.notFoundTitle");
    body = t("errors.notFoundBody");
  } else if (isRouteErrorResponse(error) && error.status === 403) {
    title = t("errors.forbiddenTitle");
    body = t("errors.forbiddenBody");
  } else if (isRouteErrorResponse(error) && error.status < 500) {
    title = t("errors.badRequestTitle");
    body = t("errors.badRequestBody");
  } else if (!isRouteErrorResponse(error) && typeof document !== "undefined") {
    // In the browser; on the server, entry.server.tsx's handleError has logged it.
    console.error(error);
  }
  // A refusal that says why (a row id that is none, a call summary not found) shows its reason.
  if (isRouteErrorResponse(error) && error.status < 500 && typeof error.data?.message === "string") body = error.data.message;
  return (
    <div className="mx-auto max-w-2xl px-4 py-20 text-center">
      <title>{`${title} · Sakina`}</title>
      <h1 className="text-3xl font-semibold tracking-tight text-slate-900">{title}</h1>
      <p className="mt-3 text-lg text-slate-700">{body}</p>
      <Link to="/" className={`${buttonClass()} mt-8`}>
        {t("errors.goHome")}
      </Link>
    </div>
  );
}
