import { useEffect, useRef } from "react";
import { useTranslation } from "~/ui/translation";

export interface FieldProblem {
  /** The id of the invalid control; the summary links to it. */
  id: string;
  message: string;
}

/**
 * Submits seen in this page (capture phase: before the form's own handlers validate it). Conform
 * also submits, with a hidden "__intent__" button, to revalidate as someone types: not counted.
 */
let submits = 0;
if (typeof document !== "undefined") {
  document.addEventListener(
    "submit",
    (event) => {
      const submitter = (event as SubmitEvent).submitter as HTMLButtonElement | null;
      if (!/^__intent__$/i.test(submitter?.name ?? "")) submits++;
    },
    true,
  );
}

/** The invalid fields of a conform form, in the order given (the form's order). */
export function problemsOf(fields: { id: string; errors?: string[] | null }[]): FieldProblem[] {
  return fields.flatMap((field) => (field.errors?.length ? [{ id: field.id, message: field.errors[0]! }] : []));
}

/**
 * The top of a form after a failed submit: a heading and a link to each invalid field, plus any
 * problem of the whole form. It takes the focus when it appears (with JavaScript; without it the
 * page title says "Error:" and the summary is the first thing in the form), so a screen-reader
 * user hears that the submit failed and can jump to each field.
 */
export function ErrorSummary({ problems, formErrors = [] }: { problems: FieldProblem[]; formErrors?: (string | null | undefined)[] }) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDivElement>(null);
  const handledSubmit = useRef<number | null>(null);
  const general = formErrors.filter((message): message is string => Boolean(message));
  const signature = JSON.stringify([problems, general]);
  const visible = problems.length > 0 || general.length > 0;
  useEffect(() => {
    if (!visible) return;
    // When it appears, and after each failed submit; not while someone fixes a field and the list shrinks.
    if (handledSubmit.current === null || handledSubmit.current !== submits) ref.current?.focus();
    handledSubmit.current = submits;
  }, [visible, signature]);
  if (!visible) return null;
  return (
    <div
      ref={ref}
      tabIndex={-1}
      data-error-summary
      aria-labelledby="error-summary-title"
      className="rounded-xl border-2 border-rose-700 bg-rose-50 p-4 text-rose-950 focus:outline-3 focus:outline-offset-2 focus:outline-teal-700"
    >
      <div role="alert">
        <h2 id="error-summary-title" className="text-base font-semibold">
          {t("flows.errorSummaryTitle")}
        </h2>
        <ul className="mt-2 list-disc space-y-1 ps-5 text-sm">
          {general.map((message) => (
            <li key={message}>{message}</li>
          ))}
          {problems.map((problem) => (
            <li key={problem.id}>
              <a href={`#${problem.id}`} className="font-medium text-rose-900 underline underline-offset-2">
                {problem.message}
              </a>
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}

/**
 * The page's `<title>`, starting with "Error: " while its form shows errors, so the first thing
 * a screen reader says after a failed submit (with or without JavaScript) is that it failed.
 */
export function PageTitle({ title, error = false }: { title: string; error?: boolean }) {
  const { t } = useTranslation();
  return <title>{error ? t("flows.errorTitle", { title }) : title}</title>;
}
