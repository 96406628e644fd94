import { randomUUID } from "node:crypto";
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import nodemailer from "nodemailer";
import type { Transporter } from "nodemailer";
import { emailsSent } from "~/platform/observability/metrics.server";

export interface EmailMessage {
  to: string;
  subject: string;
  html: string;
  text: string;
  replyTo?: string;
  attachments?: { filename: string; content: string; contentType: string }[];
}

export interface Mailer {
  /** "smtp" delivers; "outbox" writes .eml files for development and demos. */
  kind: "smtp" | "outbox";
  send(message: EmailMessage): Promise<{ messageId: string }>;
  /** A real check that the provider answers (SMTP handshake), for the status page. */
  verify(): Promise<boolean>;
  close(): void;
}

export function createMailer(options: { smtpUrl?: string; from: string; outboxDir: string }): Mailer {
  const mailer = transportFor(options);
  // Every send, counted by result (sakina_emails_sent_total), whichever transport it went through.
  return {
    ...mailer,
    async send(message) {
      try {
        const sent = await mailer.send(message);
        emailsSent.inc({ result: "sent" });
        return sent;
      } catch (error) {
        emailsSent.inc({ result: "error" });
        throw error;
      }
    },
  };
}

function transportFor(options: { smtpUrl?: string; from: string; outboxDir: string }): Mailer {
  if (options.smtpUrl) {
    const transport = nodemailer.createTransport(options.smtpUrl);
    return {
      kind: "smtp",
      send: (message) => sendWith(transport, options.from, message),
      verify: () =>
        transport.verify().then(
          () => true,
          () => false,
        ),
      close: () => transport.close(),
    };
  }

  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true });
  return {
    kind: "outbox",
    async send(message) {
      const info = await transport.sendMail({ from: options.from, ...message });
      await mkdir(options.outboxDir, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomUUID().slice(0, 8)}.eml`;
      // Written under a temporary name and renamed, so a reader never sees half a message.
      const partial = path.join(options.outboxDir, `.${name}.partial`);
      await writeFile(partial, info.message as Buffer);
      await rename(partial, path.join(options.outboxDir, name));
      return { messageId: info.messageId };
    },
    verify: async () => true,
    close: () => transport.close(),
  };
}

async function sendWith(transport: Transporter, from: string, message: EmailMessage) {
  const info = await transport.sendMail({ from, ...message });
  return { messageId: info.messageId };
}
