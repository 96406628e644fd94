import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./ports";

/**
 * A real CalDAV server for the tests: Debian's Radicale (/usr/bin/radicale, `apt-get install
 * radicale`), on a free port, with its storage in a temporary folder and one user in a plain
 * htpasswd file. `stop()` kills it (the server stopping mid-sync); `start()` starts it again on
 * the same port and storage.
 */
export async function startRadicale(options: { user?: string; password?: string } = {}) {
  const user = options.user ?? "owner";
  const password = options.password ?? "app-password-1234";
  const dir = mkdtempSync(path.join(tmpdir(), "sakina-radicale-"));
  const port = await freePort();
  writeFileSync(path.join(dir, "users"), `${user}:${password}\n`);
  writeFileSync(
    path.join(dir, "config"),
    [
      "[server]",
      `hosts = 127.0.0.1:${port}`,
      "[auth]",
      "type = htpasswd",
      `htpasswd_filename = ${path.join(dir, "users")}`,
      "htpasswd_encryption = plain",
      "delay = 0",
      "[rights]",
      "type = owner_only",
      "[storage]",
      `filesystem_folder = ${path.join(dir, "collections")}`,
      "[web]",
      "type = none",
      "[logging]",
      "level = warning",
      "",
    ].join("\n"),
  );
  const origin = `http://127.0.0.1:${port}`;
  const auth = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
  let child: ChildProcess | null = null;

  async function start() {
    child = spawn("radicale", ["--config", path.join(dir, "config")], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        const response = await fetch(`${origin}/`, { method: "OPTIONS" });
        await response.body?.cancel();
        return;
      } catch {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`Radicale did not start: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  async function stop() {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGTERM");
    await exited;
  }

  async function dav(method: string, href: string, body?: string, headers: Record<string, string> = {}) {
    return fetch(new URL(href, origin), { method, headers: { Authorization: auth, ...headers }, body });
  }

  await start();
  const calendarUrl = `${origin}/${user}/calendar/`;
  const made = await dav(
    "MKCALENDAR",
    calendarUrl,
    `<?xml version="1.0" encoding="utf-8"?><C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop><D:displayname>Work</D:displayname></D:prop></D:set></C:mkcalendar>`,
    { "Content-Type": "application/xml" },
  );
  if (made.status !== 201) throw new Error(`MKCALENDAR answered ${made.status}: ${await made.text()}`);

  return {
    origin,
    user,
    password,
    calendarUrl,
    start,
    stop,
    /** Puts an event of the owner's own (as their phone's calendar app would). */
    async putEvent(name: string, ics: string) {
      const response = await dav("PUT", `${calendarUrl}${name}.ics`, ics, { "Content-Type": "text/calendar" });
      if (response.status >= 300) throw new Error(`PUT answered ${response.status}: ${await response.text()}`);
    },
    /** The calendar's events as files: href and body. */
    async events() {
      const response = await dav(
        "REPORT",
        calendarUrl,
        `<?xml version="1.0" encoding="utf-8"?><C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/><C:calendar-data/></D:prop><C:filter><C:comp-filter name="VCALENDAR"/></C:filter></C:calendar-query>`,
        { Depth: "1", "Content-Type": "application/xml" },
      );
      const text = await response.text();
      return [...text.matchAll(/<(?:\w+:)?response>([\s\S]*?)<\/(?:\w+:)?response>/g)].map((match) => {
        const block = match[1]!;
        const href = /<(?:\w+:)?href>([^<]*)</.exec(block)?.[1] ?? "";
        const data = /<(?:\w+:)?calendar-data[^>]*>([\s\S]*?)<\/(?:\w+:)?calendar-data>/.exec(block)?.[1] ?? "";
        return { href, ics: data.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&#13;/g, "\r").replace(/&amp;/g, "&") };
      });
    },
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Radicale = Awaited<ReturnType<typeof startRadicale>>;
