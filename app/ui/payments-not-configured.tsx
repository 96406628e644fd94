import { useTranslation } from "~/ui/translation";

/** Said before anything is typed: the steps up to the payment work, the payment itself cannot. */
export function PaymentsNotConfigured() {
  const { t } = useTranslation();
  return (
    <p data-payments-not-configured className="mb-6 rounded-lg bg-amber-50 p-3 text-sm text-amber-900">
      {t("payment.notConfigured")}
    </p>
  );
}
