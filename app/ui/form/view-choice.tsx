import { Form } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import { Button } from "~/ui/form/button";
import { SelectField } from "~/ui/form/field";
import type { Option } from "~/ui/form/option-list";
import type { ClockChoice } from "~/lib/when";

/**
 * The time zone and the 12- or 24-hour clock a customer's page writes its times in (the booking
 * page, the manage page): a plain GET form, so it works without JavaScript; `hidden` keeps the
 * step the page is on. The choices come back through `viewChoiceOf` (app/lib/when.ts).
 * `optionsAsHtml`: the zone list written once as HTML, on a page that loads no React.
 */
export function ViewChoice({
  idPrefix,
  zoneLabel,
  zone,
  clock,
  zoneOptions,
  optionsAsHtml = false,
  hidden,
  className = "",
}: {
  idPrefix: string;
  zoneLabel: string;
  zone: string;
  clock: ClockChoice;
  zoneOptions: readonly Option[];
  optionsAsHtml?: boolean;
  hidden: Record<string, string | number>;
  className?: string;
}) {
  const { t } = useTranslation();
  return (
    <Form method="get" preventScrollReset className={`flex flex-wrap items-end gap-3 ${className}`} aria-label={t("manageLink.zone")}>
      {Object.entries(hidden).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {optionsAsHtml ? (
        <SelectField
          id={`${idPrefix}-zone`}
          label={zoneLabel}
          name="tz"
          defaultValue={zone}
          className="grow basis-64"
          options={zoneOptions}
        />
      ) : (
        <SelectField id={`${idPrefix}-zone`} label={zoneLabel} name="tz" defaultValue={zone} className="grow basis-64">
          {zoneOptions.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </SelectField>
      )}
      <SelectField id={`${idPrefix}-clock`} label={t("manageLink.clock")} name="clock" defaultValue={clock} className="basis-32">
        <option value="">{t("manageLink.clockDefault")}</option>
        <option value="12">{t("manageLink.clock12")}</option>
        <option value="24">{t("manageLink.clock24")}</option>
      </SelectField>
      <Button type="submit" variant="secondary">
        {t("manageLink.show")}
      </Button>
    </Form>
  );
}

/** The zone and clock chosen, as hidden fields of a form that posts or moves within the page. */
export function KeepInputs({ keep }: { keep: Record<string, string> }) {
  return (
    <>
      {Object.entries(keep).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
    </>
  );
}
