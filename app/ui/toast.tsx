import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import type { Toast } from "~/platform/toast.server";
import { useHydrated } from "~/ui/use-hydrated";

const DURATION_MS = 5000;

/**
 * The one toast of the page, rendered on the server from the flash cookie, so it shows without
 * JavaScript. With JavaScript, success toasts hide after five seconds; errors stay until dismissed.
 */
export function ToastViewport({ toast }: { toast: Toast | null }) {
  const { t } = useTranslation();
  const [visible, setVisible] = useState<Toast | null>(toast);
  const hydrated = useHydrated();
  // A new toast from the next navigation replaces the shown one (state adjusted during render).
  const [shown, setShown] = useState(toast);
  if (toast !== shown) {
    setShown(toast);
    setVisible(toast);
  }
  useEffect(() => {
    if (!visible || visible.type === "error") return;
    const timer = setTimeout(() => setVisible(null), DURATION_MS);
    return () => clearTimeout(timer);
  }, [visible]);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "F8") document.getElementById("toast-viewport")?.focus();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const tone = visible?.type === "error" ? "border-rose-300 bg-rose-50 text-rose-950" : "border-emerald-300 bg-emerald-50 text-emerald-950";
  return (
    <div
      id="toast-viewport"
      tabIndex={-1}
      role={visible?.type === "error" ? "alert" : "status"}
      aria-live={visible?.type === "error" ? "assertive" : "polite"}
      className="pointer-events-none fixed inset-x-4 bottom-4 z-50 flex justify-end sm:start-auto sm:end-4 sm:w-96"
    >
      {visible ? (
        <div className={`pointer-events-auto flex w-full items-start gap-3 rounded-xl border p-4 shadow-lg ${tone}`}>
          <div className="flex-1">
            <p className="font-semibold">{visible.title}</p>
            {visible.description ? <p className="mt-1 text-sm">{visible.description}</p> : null}
          </div>
          {hydrated ? (
            <button
              type="button"
              onClick={() => setVisible(null)}
              className="rounded-md px-2 text-lg leading-none"
              aria-label={t("common.dismiss")}
            >
              ×
            </button>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
