import { useEffect, useRef, useState } from "react";
import { useFetcher, useNavigation, useRevalidator } from "react-router";
import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import { MAX_MESSAGE_LENGTH } from "~/features/agent/chat";
import { VoiceMode } from "~/features/agent/voice-mode";
import { CALLS_UNAVAILABLE_ID, CallsUnavailable } from "~/ui/calls-unavailable";
import { Ltr, UserText, isolateNumbers, tIsolated } from "~/ui/bidi";
import { Button, buttonClass, linkClass } from "~/ui/form/button";
import { Card } from "~/ui/card";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { ErrorSummary, PageTitle, problemsOf } from "~/ui/form/error-summary";
import { Field, TextareaField } from "~/ui/form/field";
import { FocusHeading } from "~/ui/form/focus";
import type { Route } from "../../routes/+types/call";

export function CallPage({ loaderData, actionData }: Pick<Route.ComponentProps, "loaderData" | "actionData">) {
  const { t } = useTranslation();
  const problem = actionData && "intent" in actionData ? actionData : null;
  return (
    <div className="mx-auto max-w-5xl px-4 py-10 sm:py-14">
      <PageTitle title={loaderData.title} error={Boolean(problem && (problem.form || Object.keys(problem.fields).length > 0))} />
      <FocusHeading level={1} className="text-3xl font-semibold tracking-tight text-slate-900">
        {t("agent.title")}
      </FocusHeading>
      <p className="mt-2 max-w-3xl text-slate-700">{t("agent.intro")}</p>
      <p className="mt-1 text-sm text-slate-600">{t("agent.aiNote")}</p>
      <div className="mt-8 grid gap-6 lg:grid-cols-2">
        <CallMe data={loaderData} problem={problem?.intent === "call_me" ? problem : null} />
        <WebCall data={loaderData} problem={problem && problem.intent !== "call_me" ? problem : null} />
      </div>
      <section aria-labelledby="more-title" className="mt-10">
        <h2 id="more-title" className="text-xl font-semibold text-slate-900">
          {t("agent.more")}
        </h2>
        <ul className="mt-4 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          {(
            [
              ["/business", "cardBusiness"],
              ["/dashboard", "cardDashboard"],
              ["/voice-settings", "cardVoice"],
              ["/telephony", "cardControl"],
            ] as const
          ).map(([to, key]) => (
            <li key={to}>
              <Link
                to={to}
                className="block h-full rounded-card border border-sand-200 bg-white p-4 no-underline shadow-card hover:border-teal-700"
              >
                <span className="font-semibold text-teal-900">{t(`agent.${key}`)}</span>
                <span className="mt-1 block text-sm text-slate-700">{t(`agent.${key}Body`)}</span>
              </Link>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}

type LoaderData = Route.ComponentProps["loaderData"];
type ActionProblem = {
  intent: string;
  fields: Record<string, string[]>;
  form: string | null;
  values: { phone: string; name: string };
} | null;

function CallMe({ data: page, problem }: { data: LoaderData; problem: ActionProblem }) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const revalidator = useRevalidator();
  const status = page.callMe;
  // While the call is being placed the page asks again every two seconds (without JavaScript: the refresh link).
  useEffect(() => {
    if (status?.state !== "calling") return;
    const timer = setInterval(() => revalidator.revalidate(), 2000);
    return () => clearInterval(timer);
  }, [status?.state, revalidator]);
  const busy = navigation.state !== "idle" && navigation.formData?.get("intent") === "call_me";
  return (
    <Card>
      <section aria-labelledby="call-me" className="space-y-4">
        <h2 id="call-me" className="text-xl font-semibold text-slate-900">
          {t("agent.callMeTitle")}
        </h2>
        <div role="status" aria-live="polite">
          {status?.state === "calling" ? (
            <div className="flex items-start gap-3 rounded-lg bg-teal-50 p-4 text-teal-950">
              <span
                aria-hidden="true"
                className="mt-1 size-4 shrink-0 animate-spin rounded-full border-2 border-teal-700 border-t-transparent"
              />
              <div>
                <p className="font-semibold">{tIsolated(t, "agent.calling", { phone: <Ltr>{status.phone}</Ltr> })}</p>
                <p className="mt-1 text-sm">{t("agent.callingHint")}</p>
                <noscript>
                  <a href={`/call?call=${status.token}#call-me`} className={linkClass}>
                    {t("agent.refresh")}
                  </a>
                </noscript>
              </div>
            </div>
          ) : status?.state === "started" ? (
            <div className="rounded-lg bg-emerald-50 p-4 text-emerald-950">
              <p className="font-semibold">{t("agent.started")}</p>
              <p className="mt-1 text-sm">{tIsolated(t, "agent.startedBody", { phone: <Ltr>{status.phone}</Ltr> })}</p>
            </div>
          ) : status?.state === "failed" ? (
            <div className="rounded-lg bg-rose-50 p-4 text-rose-950">
              <p className="font-semibold">{t("agent.failedTitle")}</p>
              <p className="mt-1 text-sm">{status.message}</p>
            </div>
          ) : null}
        </div>
        {status && status.state !== "calling" ? (
          <Link to="/call#call-me" className={buttonClass("secondary")}>
            {status.state === "failed" ? t("agent.retry") : t("agent.anotherCall")}
          </Link>
        ) : null}
        {!status ? (
          <>
            <p className="text-slate-700">{t("agent.callMeIntro")}</p>
            {page.trial ? <p className="rounded-lg bg-amber-50 p-3 text-sm text-amber-950">{t("agent.trialNote")}</p> : null}
            <CallsUnavailable reason={page.callsUnavailable} />
            <Form method="post" className="space-y-4" noValidate>
              <AuthenticityTokenInput />
              <input type="hidden" name="intent" value="call_me" />
              <ErrorSummary problems={problemsOf([{ id: "call-me-phone", errors: problem?.fields.phone }])} />
              <Field
                label={t("agent.phone")}
                id="call-me-phone"
                name="phone"
                type="tel"
                dir="ltr"
                autoComplete="tel"
                inputMode="tel"
                hint={isolateNumbers(t("agent.phoneHint"))}
                defaultValue={problem?.values.phone}
                errors={problem?.fields.phone}
              />
              <div className="flex flex-wrap gap-3">
                <Button
                  type="submit"
                  disabled={Boolean(page.callsUnavailable) || busy}
                  aria-describedby={page.callsUnavailable ? CALLS_UNAVAILABLE_ID : undefined}
                >
                  {busy ? t("common.sending") : t("agent.callMe")}
                </Button>
                {page.testNumber ? (
                  <Button type="submit" name="useTest" value="1" variant="secondary" disabled={Boolean(page.callsUnavailable) || busy}>
                    {t("agent.testNumber")}
                  </Button>
                ) : null}
              </div>
            </Form>
          </>
        ) : null}
      </section>
    </Card>
  );
}

const timeFormat = (locale: string) => new Intl.DateTimeFormat(locale === "ar" ? "ar-SA" : locale, { hour: "numeric", minute: "2-digit" });

function WebCall({ data: page, problem }: { data: LoaderData; problem: ActionProblem }) {
  const { t } = useTranslation();
  const chat = page.chat;
  if (!chat) {
    return (
      <Card>
        <section aria-labelledby="chat" className="space-y-4">
          <h2 id="chat" className="text-xl font-semibold text-slate-900">
            {t("agent.webTitle")}
          </h2>
          <p className="text-slate-700">{t("agent.webIntro")}</p>
          {!page.aiConfigured ? <p className="rounded-lg bg-amber-50 p-3 text-sm text-amber-950">{t("agent.aiNotConfigured")}</p> : null}
          <Form method="post" className="space-y-4" noValidate>
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="start_chat" />
            <ErrorSummary
              problems={problemsOf([
                { id: "chat-name", errors: problem?.fields.name },
                { id: "chat-phone", errors: problem?.fields.phone },
              ])}
              formErrors={[problem?.form]}
            />
            <Field
              label={t("agent.name")}
              id="chat-name"
              name="name"
              autoComplete="name"
              defaultValue={problem?.values.name}
              errors={problem?.fields.name}
            />
            <Field
              label={t("agent.phone")}
              id="chat-phone"
              name="phone"
              type="tel"
              dir="ltr"
              autoComplete="tel"
              hint={isolateNumbers(t("agent.phoneHint"))}
              defaultValue={problem?.values.phone}
              errors={problem?.fields.phone}
            />
            <Button type="submit" disabled={!page.aiConfigured}>
              {t("agent.startCall")}
            </Button>
          </Form>
        </section>
      </Card>
    );
  }
  return <Conversation chat={chat} liveVoice={page.liveVoice} problem={problem} />;
}

function Conversation({ chat, liveVoice, problem }: { chat: NonNullable<LoaderData["chat"]>; liveVoice: boolean; problem: ActionProblem }) {
  const { t, i18n } = useTranslation();
  const fetcher = useFetcher<Route.ComponentProps["actionData"]>();
  const formRef = useRef<HTMLFormElement>(null);
  const listRef = useRef<HTMLOListElement>(null);
  const sending = fetcher.state !== "idle";
  const pending = sending ? String(fetcher.formData?.get("message") ?? "") : "";
  const format = timeFormat(i18n.language);
  const fetcherProblem = fetcher.data && "intent" in fetcher.data ? fetcher.data : null;
  const shownProblem = fetcherProblem ?? problem;
  useEffect(() => {
    listRef.current?.lastElementChild?.scrollIntoView({ block: "nearest" });
  }, [chat.messages.length, pending]);
  useEffect(() => {
    if (fetcher.state === "idle" && !fetcherProblem) formRef.current?.reset();
  }, [fetcher.state, fetcherProblem]);
  return (
    <Card>
      <section aria-labelledby="chat" className="space-y-4">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h2 id="chat" className="text-xl font-semibold text-slate-900">
            {tIsolated(t, "agent.inCall", { name: chat.name })}
          </h2>
          <CallTimer startedAt={chat.startedAt} active={chat.active} />
        </div>
        <p className="text-sm text-slate-700">
          <Ltr>{chat.phone}</Ltr>
        </p>
        <ol
          ref={listRef}
          aria-label={t("agent.webTitle")}
          // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- the conversation scrolls once it is long: keyboard users must be able to reach and scroll it (axe: scrollable-region-focusable)
          tabIndex={0}
          className="h-80 space-y-3 overflow-y-auto rounded-lg border border-sand-200 bg-sand-50 p-3 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-700"
        >
          {chat.messages.map((message, index) => (
            <li key={index} className={message.role === "user" ? "ms-8" : "me-8"}>
              <div className={`rounded-xl p-3 ${message.role === "user" ? "bg-teal-700 text-white" : "bg-white text-slate-900 shadow-sm"}`}>
                <p className="text-xs font-semibold opacity-90">{message.role === "user" ? t("agent.you") : t("agent.agentName")}</p>
                <p className="mt-1 whitespace-pre-wrap">
                  <UserText>{message.text}</UserText>
                </p>
              </div>
              <p className="mt-1 text-xs text-slate-600">
                <time dateTime={message.at}>{format.format(new Date(message.at))}</time>
              </p>
            </li>
          ))}
          {pending ? (
            <li className="ms-8">
              <div className="rounded-xl bg-teal-700 p-3 text-white">
                <p className="whitespace-pre-wrap">
                  <UserText>{pending}</UserText>
                </p>
              </div>
            </li>
          ) : null}
        </ol>
        <p role="status" className="min-h-5 text-sm text-slate-700">
          {sending ? t("agent.typing") : !chat.active ? t("agent.ended") : ""}
        </p>
        {chat.active ? (
          <>
            <VoiceMode token={chat.token} active={chat.active} live={liveVoice}>
              <fetcher.Form ref={formRef} method="post" className="space-y-3" noValidate>
                <AuthenticityTokenInput />
                <input type="hidden" name="intent" value="send" />
                <input type="hidden" name="token" value={chat.token} />
                <ErrorSummary
                  problems={problemsOf([{ id: "chat-message", errors: shownProblem?.fields.message }])}
                  formErrors={[shownProblem?.form]}
                />
                <TextareaField
                  label={t("agent.messageLabel")}
                  id="chat-message"
                  name="message"
                  rows={2}
                  dir="auto"
                  maxLength={MAX_MESSAGE_LENGTH}
                  hint={t("agent.messageHint")}
                  errors={shownProblem?.fields.message}
                  onKeyDown={(event) => {
                    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
                      event.preventDefault();
                      if (!sending && event.currentTarget.value.trim()) formRef.current?.requestSubmit();
                    }
                  }}
                />
                <Button type="submit" disabled={sending}>
                  {t("agent.send")}
                </Button>
              </fetcher.Form>
            </VoiceMode>
            <Form method="post" noValidate>
              <AuthenticityTokenInput />
              <input type="hidden" name="intent" value="hang_up" />
              <input type="hidden" name="token" value={chat.token} />
              <Button type="submit" variant="danger">
                {t("agent.hangUp")}
              </Button>
            </Form>
          </>
        ) : (
          <Link to="/call#chat" className={buttonClass("secondary")}>
            {t("agent.newChat")}
          </Link>
        )}
      </section>
    </Card>
  );
}

/** m:ss since the conversation started, ticking every second (with JavaScript). */
function CallTimer({ startedAt, active }: { startedAt: string; active: boolean }) {
  const { t } = useTranslation();
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    if (!active) return;
    // From the first tick on (a second after the page shows): the server cannot know the browser's clock.
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [active]);
  if (now === null) return null;
  const seconds = Math.max(0, Math.floor((now - new Date(startedAt).getTime()) / 1000));
  const shown = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  return (
    <p className="text-sm text-slate-700">
      <span className="sr-only">{t("agent.timer")}: </span>
      <span dir="ltr" className="font-mono tabular-nums" aria-hidden="false">
        {shown}
      </span>
    </p>
  );
}
