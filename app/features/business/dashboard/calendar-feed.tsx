import { Form } from "~/ui/link";
import { useState } from "react";
import { useTranslation } from "~/ui/translation";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Button, buttonClass } from "~/ui/form/button";
import { CopyButton } from "~/ui/form/copy-button";
import { Field } from "~/ui/form/field";

/**
 * The owner's private calendar subscription: a webcal:// link that opens the calendar app, the
 * https address to paste (a read-only field, selectable without JavaScript; a copy button with it),
 * and a new link on demand, the old one ending at once.
 */
export function CalendarFeedPanel({ links }: { links: { https: string; webcal: string } }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  return (
    <section aria-labelledby="calendar-feed-title" className="mt-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
      <h2 id="calendar-feed-title" className="text-lg font-semibold text-slate-900">
        {t("calendarFeed.title")}
      </h2>
      <p className="mt-1 text-sm text-slate-700">{t("calendarFeed.intro")}</p>
      <p className="mt-4">
        <a href={links.webcal} className={buttonClass("primary")}>
          {t("calendarFeed.subscribe")}
        </a>
      </p>
      <div className="mt-4 flex flex-wrap items-end gap-3">
        <Field
          id="calendar-feed-url"
          label={t("calendarFeed.linkLabel")}
          hint={t("calendarFeed.linkHint")}
          type="url"
          readOnly
          value={links.https}
          onFocus={(event) => event.currentTarget.select()}
          className="min-w-0 grow basis-72"
        />
        <CopyButton value={links.https} label={t("calendarFeed.linkLabel")} onCopied={() => setCopied(true)} />
      </div>
      <p role="status" className="mt-1 text-sm text-emerald-800">
        {copied ? `${t("copy.copied")} ${t("copy.copiedBody", { label: t("calendarFeed.linkLabel") })}` : ""}
      </p>
      <Form
        method="post"
        className="mt-4 flex flex-wrap items-center gap-3 border-t border-slate-200 pt-4"
        onSubmit={(event) => {
          if (!window.confirm(t("calendarFeed.rotateWarning"))) event.preventDefault();
        }}
      >
        <AuthenticityTokenInput />
        <input type="hidden" name="intent" value="rotate-calendar-feed" />
        <p id="calendar-feed-rotate-warning" className="min-w-0 grow basis-72 text-sm text-slate-700">
          {t("calendarFeed.rotateWarning")}
        </p>
        <Button type="submit" variant="secondary" aria-describedby="calendar-feed-rotate-warning">
          {t("calendarFeed.rotate")}
        </Button>
      </Form>
    </section>
  );
}
