import { useTranslation } from "~/ui/translation";
import { isolateNumbers } from "~/ui/bidi";

/** A step indicator: earlier steps show a tick, the current one is announced as such. */
export function Steps({ steps, current }: { steps: string[]; current: number }) {
  const { t } = useTranslation();
  return (
    <ol className="flex flex-wrap items-center gap-x-4 gap-y-2 text-sm" aria-label={t("steps.label")}>
      {steps.map((label, index) => {
        const done = index < current;
        const active = index === current;
        return (
          <li key={label} className="flex items-center gap-2" aria-current={active ? "step" : undefined}>
            <span
              aria-hidden="true"
              className={`flex h-7 w-7 items-center justify-center rounded-full text-sm font-semibold ${
                done
                  ? "bg-teal-700 text-white"
                  : active
                    ? "border-2 border-teal-700 text-teal-800"
                    : "border border-slate-400 text-slate-600"
              }`}
            >
              {done ? "✓" : index + 1}
            </span>
            <span className={active ? "font-semibold text-slate-900" : "text-slate-700"}>
              {isolateNumbers(label)}
              {done ? <span className="sr-only"> ({t("steps.done")})</span> : null}
            </span>
          </li>
        );
      })}
    </ol>
  );
}
