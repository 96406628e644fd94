import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { waitFor } from "./wait";

export interface OutboxMail {
  to: string;
  subject: string;
  text: string;
  raw: string;
}

function decodeQuotedPrintable(value: string) {
  const bytes = value.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

function decodeHeader(value: string) {
  return value.replace(/=\?utf-8\?([bq])\?([^?]*)\?=\s*/gi, (_, enc: string, text: string) =>
    enc.toLowerCase() === "b" ? Buffer.from(text, "base64").toString("utf8") : decodeQuotedPrintable(text.replace(/_/g, " ")),
  );
}

/** Reads an .eml written by the app's outbox: headers and the decoded text/plain part. */
export function parseEml(raw: string): OutboxMail {
  const header = (name: string) => {
    const match = raw.match(new RegExp(`^${name}: (.*(?:\\r?\\n[ \\t].*)*)`, "mi"));
    return decodeHeader((match?.[1] ?? "").replace(/\r?\n[ \t]/g, " "));
  };
  const textPart = raw.split(/\r?\n--/).find((part) => /Content-Type: text\/plain/i.test(part)) ?? raw;
  const [partHeaders = "", ...bodyParts] = textPart.split(/\r?\n\r?\n/);
  const body = bodyParts.join("\n\n");
  const encoding = /Content-Transfer-Encoding: (\S+)/i.exec(partHeaders)?.[1]?.toLowerCase();
  const text =
    encoding === "quoted-printable"
      ? decodeQuotedPrintable(body)
      : encoding === "base64"
        ? Buffer.from(body.replace(/\s/g, ""), "base64").toString("utf8")
        : body;
  return { to: header("To"), subject: header("Subject"), text, raw };
}

export async function readOutbox(dataDir: string): Promise<OutboxMail[]> {
  const dir = path.join(dataDir, "outbox");
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith(".eml")).sort();
  return Promise.all(files.map(async (file) => parseEml(await readFile(path.join(dir, file), "utf8"))));
}

/** Waits for a message to `to` whose subject matches, and returns it. */
export function waitForMail(dataDir: string, to: string, subject: RegExp, options: { after?: number } = {}) {
  return waitFor(
    async () => {
      const mails = (await readOutbox(dataDir)).filter((m) => m.to.includes(to) && subject.test(m.subject));
      return mails.length > (options.after ?? 0) ? mails.at(-1) : null;
    },
    { what: `an e-mail to ${to} matching ${subject}`, timeoutMs: 20_000 },
  );
}

export function linkIn(mail: OutboxMail, pathPrefix: string) {
  const match = mail.text.match(new RegExp(`https?://[^\\s]+${pathPrefix.replace(/[/?]/g, "\\$&")}[^\\s]*`));
  if (!match) throw new Error(`No ${pathPrefix} link in:\n${mail.text}`);
  return match[0];
}
