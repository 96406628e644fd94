import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { data } from "react-router";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/dev.outbox";
import { servicesContext, socketPeerContext } from "~/platform/context";

export const meta: Route.MetaFunction = () => [{ title: "Outbox · Sakina" }];

/**
 * A development aid: the e-mails written to the outbox folder. The outbox holds other people's
 * mail (reset links, temporary passwords), so it is served only in development, only while no
 * SMTP server is set, and only to this machine as the socket sees it. A forwarded request is
 * refused whatever its headers claim: a proxy on this machine (its socket peer is loopback)
 * relays visitors from anywhere, and not every proxy says so, hence TRUST_PROXY counts too.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { mailer, outboxDir, env } = context.get(servicesContext);
  if (env.NODE_ENV === "production" || env.SMTP_URL || mailer.kind === "smtp") throw data(null, { status: 404 });
  if (env.TRUST_PROXY !== false || isForwarded(request.headers)) throw data(null, { status: 404 });
  if (!isLoopback(context.get(socketPeerContext))) throw data(null, { status: 404 });
  const files = await readdir(outboxDir).catch(() => [] as string[]);
  const newest = files
    .filter((f) => f.endsWith(".eml"))
    .sort()
    .reverse()
    .slice(0, 50);
  const messages = await Promise.all(
    newest.map(async (file) => {
      const raw = await readFile(path.join(outboxDir, file), "utf8");
      const header = (name: string) =>
        raw.match(new RegExp(`^${name}: (.*(?:\\r?\\n[ \\t].*)*)`, "mi"))?.[1]?.replace(/\r?\n[ \t]/g, " ") ?? "";
      return { file, to: header("To"), subject: decodeMimeWords(header("Subject")), date: header("Date"), raw };
    }),
  );
  return { dir: outboxDir, messages };
}

const FORWARDING_HEADERS = ["forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-real-ip", "via"];

function isForwarded(headers: Headers) {
  return FORWARDING_HEADERS.some((name) => headers.has(name));
}

function isLoopback(ip: string) {
  return ip === "::1" || ip.startsWith("127.") || ip.startsWith("::ffff:127.");
}

function decodeMimeWords(value: string) {
  return value.replace(/=\?utf-8\?([bq])\?([^?]*)\?=\s*/gi, (_, encoding: string, text: string) =>
    encoding.toLowerCase() === "b"
      ? Buffer.from(text, "base64").toString("utf8")
      : Buffer.from(
          text.replace(/_/g, " ").replace(/=([0-9a-f]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
          "latin1",
        ).toString("utf8"),
  );
}

export default function Outbox({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <div className="mx-auto max-w-4xl px-4 py-10">
      <h1 className="text-2xl font-semibold text-slate-900">{t("dev.outboxTitle")}</h1>
      <p className="mt-2 text-slate-700">{t("dev.outboxIntro", { dir: loaderData.dir })}</p>
      {loaderData.messages.length === 0 ? <p className="mt-6 text-slate-700">{t("dev.outboxEmpty")}</p> : null}
      <ul className="mt-6 space-y-3">
        {loaderData.messages.map((message) => (
          <li key={message.file} className="rounded-xl border border-slate-200 bg-white p-4">
            <details>
              <summary className="cursor-pointer">
                <span className="font-medium text-slate-900">{message.subject}</span>
                <span className="block text-sm text-slate-600">
                  {message.to} · {message.date}
                </span>
              </summary>
              <pre className="mt-3 max-h-96 overflow-auto whitespace-pre-wrap text-xs text-slate-800" dir="ltr">
                {message.raw}
              </pre>
            </details>
          </li>
        ))}
      </ul>
    </div>
  );
}
