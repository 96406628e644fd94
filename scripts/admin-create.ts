// `npm run admin:create -- someone@example.com`: creates an admin (or finds the existing one) and
// prints a single-use link to set the password; the same link is e-mailed through the job queue.
// The admin signs in at /login and must enrol an authenticator app before /admin opens.
// On the embedded PGlite database it refuses while the server runs on the same data folder.
import { createAdminWithLink, ADMIN_LINK_HOURS } from "~/features/admin/admins.server";
import { DataDirInUseError } from "~/platform/data/data-dir-lock.server";
import { sendEmailJob } from "~/platform/data/email-jobs.server";
import { EnvError, parseEnv } from "~/platform/env.server";
import { createServices } from "~/server/services.server";

const email = process.argv.slice(2).find((arg) => !arg.startsWith("-"));
if (!email) {
  console.error("Usage: npm run admin:create -- admin@example.com");
  process.exit(2);
}

let env;
try {
  env = parseEnv(process.env);
} catch (error) {
  console.error(error instanceof EnvError ? error.message : error);
  process.exit(1);
}

// The job queue's handlers do not run in this process, except the e-mail one below.
const services = await createServices(env, { runWorkers: false }).catch((error: unknown) => {
  // PGlite's folder opens in one process at a time: with the server running, an admin written
  // here would be lost, so the command refuses instead of printing "created".
  if (!(error instanceof DataDirInUseError)) throw error;
  console.error(
    `The server is running on this data folder (process ${error.pid}); stop it first, or set DATABASE_URL ` +
      `so that both use the same PostgreSQL server. (If no server runs, delete ${error.lockFile}.)`,
  );
  process.exit(1);
});
let exitCode = 0;
try {
  const result = await createAdminWithLink(services, email);
  if (!result.ok) {
    console.error(
      result.reason === "owner_account"
        ? `${email} belongs to a business owner; an admin needs an address of its own.`
        : `${email} is not a valid e-mail address.`,
    );
    exitCode = 1;
  } else {
    console.log(result.created ? `Admin ${email} created.` : `${email} is already an admin; here is a new link.`);
    console.log(`Set the password within ${ADMIN_LINK_HOURS} hours (the link works once):\n\n  ${result.link}\n`);
    console.log("Then sign in at /login and enrol an authenticator app (TOTP); /admin opens after that.");
    // Send the e-mail now if the mailer answers; otherwise it stays queued and the server retries it.
    await services.jobs.startWorkers([sendEmailJob], services);
    const sent = await waitForEmailJob(result.emailJobId, 20_000);
    console.log(sent ? `The link was e-mailed to ${email}.` : "The e-mail is queued; the running app will send it.");
  }
} finally {
  await services.close();
}
process.exit(exitCode);

/** True once the e-mail job completed; false as soon as it failed (it is then retried by the server) or after the timeout. */
async function waitForEmailJob(id: string | null, timeoutMs: number) {
  if (!id) return false;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const [job] = await services.jobs.boss.findJobs(sendEmailJob.name, { id });
    if (job?.state === "completed") return true;
    if (job?.state === "failed" || job?.state === "retry") return false;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}
