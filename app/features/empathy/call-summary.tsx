import { useTranslation } from "~/ui/translation";
import { EMPATHY_PRICE } from "~/features/empathy/offer";
import { isolateNumbers, Ltr } from "~/ui/bidi";

/** What the $5 buys, before payment (step two) and after it (the confirmation page). */
export function CallSummary({
  phone,
  language,
  voice,
  className = "",
}: {
  phone: string | null;
  language: string;
  voice: "female" | "male";
  className?: string;
}) {
  const { t } = useTranslation();
  const rows = [
    [t("empathy.phone"), phone ? <Ltr>{phone}</Ltr> : t("empathy.phoneErased")],
    [t("empathy.language"), language],
    [t("empathy.voice"), t(`empathy.voice_${voice}`)],
    [t("empathy.duration"), isolateNumbers(t("empathy.durationValue"))],
    [t("empathy.total"), <Ltr>{EMPATHY_PRICE}</Ltr>],
  ] as const;
  return (
    <dl className={`divide-y divide-slate-200 rounded-xl border border-slate-200 bg-white text-sm ${className}`}>
      {rows.map(([label, value], index) => (
        <div key={index} className="flex justify-between gap-4 px-4 py-3">
          <dt className="text-slate-600">{label}</dt>
          <dd className="text-end font-medium text-slate-900">{value}</dd>
        </div>
      ))}
    </dl>
  );
}
