import { useTranslation } from "~/ui/translation";
import { buttonClass } from "~/ui/form/button";
import { useHydrated } from "~/ui/use-hydrated";

/**
 * Copies with the Clipboard API and says so ("Copied!"). It appears only once JavaScript runs:
 * without it the link itself stays visible to select and copy.
 */
export function CopyButton({ value, label, onCopied }: { value: string; label: string; onCopied: () => void }) {
  const { t } = useTranslation();
  const hydrated = useHydrated();
  if (!hydrated) return null;
  return (
    <button
      type="button"
      className={buttonClass("secondary")}
      aria-label={`${t("copy.copy")}: ${label}`}
      onClick={async () => {
        await navigator.clipboard.writeText(value);
        onCopied();
      }}
    >
      {t("copy.copy")}
    </button>
  );
}
