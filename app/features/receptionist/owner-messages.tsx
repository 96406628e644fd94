import { Link } from "~/ui/link";
import { Ltr } from "~/ui/bidi";
import { linkClass } from "~/ui/form/button";
import { useTranslation } from "~/ui/translation";
import type { OwnerMessagesView } from "./messages.server";

/** The messages and voicemails callers left for the owner on the business's number (ADR 0041), newest first. */
export function OwnerMessages({ messages }: { messages: OwnerMessagesView }) {
  const { t } = useTranslation();
  return (
    <section
      id="messages"
      aria-labelledby="messages-title"
      className="mt-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
    >
      <h2 id="messages-title" className="text-lg font-semibold text-slate-900">
        {t("receptionist.messagesTitle")}
      </h2>
      {messages.length === 0 ? (
        <p className="mt-3 text-slate-700">{t("receptionist.messagesNone")}</p>
      ) : (
        <ul className="mt-3 divide-y divide-slate-200">
          {messages.map((message) => (
            <li key={message.id} className="grid gap-x-4 gap-y-0.5 py-2.5 text-sm sm:grid-cols-[13rem_1fr]" data-owner-message={message.id}>
              {message.callId ? (
                <Link to={`/dashboard/calls/${message.callId}`} className={`${linkClass} font-medium`}>
                  {message.when}
                </Link>
              ) : (
                <span className="font-medium text-slate-900">{message.when}</span>
              )}
              <span className="text-slate-800">
                {message.kind}
                {message.from ? (
                  <>
                    {" · "}
                    <Ltr>{message.from}</Ltr>
                  </>
                ) : null}
                {message.callerName ? (
                  <>
                    {" · "}
                    <bdi>{message.callerName}</bdi>
                  </>
                ) : null}
              </span>
              {message.body ? (
                <p className="text-slate-700 sm:col-span-2" dir="auto">
                  {message.body}
                </p>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
