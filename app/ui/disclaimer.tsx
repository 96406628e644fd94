import { useTranslation } from "~/ui/translation";
import { Icon } from "~/ui/icons";

/**
 * "Not medical advice": what the AI listener is not. Shown on the emotional-support pages, where
 * the spec puts it, rather than in every page's footer.
 */
export function Disclaimer({ className = "" }: { className?: string }) {
  const { t } = useTranslation();
  return (
    <p className={`flex gap-3 rounded-card border border-sand-200 bg-sand-50 p-4 text-sm text-ink-soft ${className}`}>
      <Icon name="shield" className="mt-0.5 size-5 text-teal-800" />
      <span>{t("footer.notMedical")}</span>
    </p>
  );
}
