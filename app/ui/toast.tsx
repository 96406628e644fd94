import { useEffect, useState } from "react";
import { useTranslation } from "~/ui/translation";
import type { Toast } from "~/platform/http/toast.server";
import { useHydrated } from "~/ui/use-hydrated";

/**
 * The one toast of the page, rendered on the server from the flash cookie, so it shows without
 * JavaScript. It is a banner in the flow of the page, drawn first (above the header), so it never
 * lies over a control, on a phone either. It stays until it is dismissed or the visitor moves
 * on: nothing vanishes while someone is still reading it. The live region is on the page from
 * the start, so a toast that arrives after a client-side navigation is announced.
 */
export function ToastViewport({ toast, enhanced = false }: { toast: Toast | null; enhanced?: boolean }) {
  const { t } = useTranslation();
  const hydrated = useHydrated();
  const [visible, setVisible] = useState<Toast | null>(toast);
  // A new toast from the next navigation replaces the shown one (state adjusted during render).
  const [shown, setShown] = useState(toast);
  if (toast !== shown) {
    setShown(toast);
    setVisible(toast);
  }
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "F8") document.getElementById("toast-viewport")?.focus();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const error = visible?.type === "error";
  const tone = error ? "border-rose-300 bg-rose-50 text-rose-950" : "border-emerald-300 bg-emerald-50 text-emerald-950";
  return (
    <div id="toast-viewport" tabIndex={-1} role="status" aria-live="polite" className="order-first focus:outline-none">
      {visible ? (
        <div className={`border-b ${tone}`}>
          <div role={error ? "alert" : undefined} className="mx-auto flex max-w-6xl items-start gap-3 px-4 py-3">
            <div className="flex-1">
              <p className="font-semibold">{visible.title}</p>
              {visible.description ? <p className="mt-1 text-sm">{visible.description}</p> : null}
            </div>
            {hydrated || enhanced ? (
              <button
                type="button"
                // A page without React: app/ui/enhance.js shows the button and empties the toast.
                hidden={enhanced && !hydrated}
                data-toast-dismiss={enhanced ? "" : undefined}
                onClick={() => setVisible(null)}
                className="-my-1 rounded-md px-3 py-1 text-sm font-medium underline underline-offset-2 hover:bg-white/60 focus-visible:outline-2 focus-visible:outline-teal-700"
              >
                {t("common.dismiss")}
              </button>
            ) : null}
          </div>
        </div>
      ) : null}
    </div>
  );
}
