import type { EmailMessage } from "~/providers/email.server";
import type { AppJob, AppServices } from "~/platform/services.server";

/**
 * Every e-mail leaves through this job, so a message accepted by a request survives a crash or
 * an SMTP outage: it is retried with backoff for about two hours before it is given up.
 *
 * The whole message is sealed in the queue and erased once sent. Sealing the rendered message,
 * rather than rendering it at send time from a sealed token, covers everything secret an e-mail
 * carries (sign-in, reset, invite and booking links, a business's temporary password, the
 * recipient's address and booking details) in one place, leaves the templates and every caller
 * as they are, and keeps the enqueue inside the caller's transaction.
 */
export const sendEmailJob: AppJob<EmailMessage> = {
  name: "email-send",
  retryLimit: 8,
  retryDelaySeconds: 30,
  sealed: { owner: (message) => message.to },
  async handle(message, services) {
    await services.mailer.send(message);
  },
};

/** Drops every e-mail still waiting to go to this address (its account is being deleted). */
export function discardQueuedEmails(services: AppServices, address: string) {
  return services.jobs.discard(sendEmailJob, address);
}
