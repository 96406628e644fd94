import type { EmailMessage } from "~/providers/email.server";
import type { AppJob } from "~/platform/services.server";

/**
 * Every e-mail leaves through this job, so a message accepted by a request survives a crash or
 * an SMTP outage: it is retried with backoff for about two hours before it is given up.
 */
export const sendEmailJob: AppJob<EmailMessage> = {
  name: "email-send",
  retryLimit: 8,
  retryDelaySeconds: 30,
  async handle(message, services) {
    await services.mailer.send(message);
  },
};
