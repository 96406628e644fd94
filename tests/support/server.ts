import { spawn, type ChildProcess } from "node:child_process";
import { appendFile, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createIsolatedDatabase } from "./database";

const root = path.resolve(import.meta.dirname, "../..");

export interface RunningServer {
  url: string;
  dataDir: string;
  /** The server process's id (a benchmark reads its CPU time from /proc). */
  pid: number | undefined;
  output: () => string;
  /** Kills the server process at once (kill -9): no shutdown of its own, as a crash or an OOM kill. */
  kill(): Promise<void>;
  /** Starts the server again on its data folder, database and port (a supervisor's restart). */
  restart(): Promise<void>;
  /** Stops the server; fails when it wrote to stderr anything the test did not allow. */
  stop(): Promise<void>;
}

/**
 * Starts the production build (`node server.js`, as `npm start` does) on a free port with a data
 * folder and database of its own. `npm test` builds first.
 *
 * For a test, Node compiles WebAssembly (PGlite) with V8's baseline compiler only, as the test
 * workers do (vite.config.ts), and PGlite gets the test settings (tests/support/database.ts): the
 * same code, about 2 s less CPU per start. A benchmark asks for the app `asDeployed`.
 */
export async function startServer(
  env: Record<string, string> = {},
  options: { allowStderr?: RegExp[]; asDeployed?: boolean } = {},
): Promise<RunningServer> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "sakina-e2e-"));
  const database = await createIsolatedDatabase({
    premigrated: true,
    dataDir: env.DATA_DIR ? undefined : dataDir,
    asDeployed: options.asDeployed,
  });
  const nodeFlags = options.asDeployed ? [] : ["--liftoff-only"];
  let stderr = "";
  let output = "";
  const launch = (port: string) => {
    const child: ChildProcess = spawn(process.execPath, [...nodeFlags, "server.js"], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        // `npm run test:at-date`: the server lives at the same shifted date as the test.
        ...(process.env.FAKETIME
          ? { LD_PRELOAD: process.env.LD_PRELOAD, FAKETIME: process.env.FAKETIME, FAKETIME_DONT_FAKE_MONOTONIC: "1" }
          : {}),
        NODE_ENV: "production",
        DATA_DIR: dataDir,
        ...database.env,
        ...env,
        PORT: port,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    // A restart's address is in what it prints, after what the earlier process printed.
    const from = output.length;
    const listening = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = output.slice(from).match(/Open: +(http:\/\/localhost:\d+)/);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!.replace("localhost", "127.0.0.1"));
        }
      };
      child.stdout!.on("data", onData);
      child.stderr!.on("data", onData);
      child.on("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`server exited with ${code}:\n${output}`));
      });
    });
    return { child, listening };
  };
  let { child, listening } = launch(env.PORT ?? "0");
  const url = await listening;
  return {
    url,
    dataDir,
    get pid() {
      return child.pid;
    },
    output: () => output,
    async kill() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    },
    async restart() {
      ({ child, listening } = launch(new URL(url).port));
      await listening;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
      // Its log lines go with the suite's for the redaction scan (tests/log-scan).
      if (process.env.SAKINA_LOG_DIR) {
        const lines = output.split("\n").filter((line) => line.startsWith("{"));
        await appendFile(path.join(process.env.SAKINA_LOG_DIR, `server-${process.pid}.jsonl`), lines.map((line) => `${line}\n`).join(""));
      }
      // The server's warnings and errors go to stderr: one nobody expected fails the test file.
      const allowed = options.allowStderr ?? [];
      // A JSON log line (the app's logger) is matched by its message, as tests/support/setup.ts does.
      const unexpected = stderr.split("\n").filter((line) => line.trim() && !allowed.some((pattern) => pattern.test(logText(line))));
      if (unexpected.length > 0) throw new Error(`The server logged unexpected lines on stderr:\n${unexpected.join("\n")}`);
    },
  };
}

/** A JSON log line's message and its error's stack; any other line as it is. */
function logText(line: string) {
  try {
    const entry = JSON.parse(line) as { msg?: string; err?: { stack?: string; message?: string } };
    return [entry.msg, entry.err?.stack ?? entry.err?.message].filter(Boolean).join(" ");
  } catch {
    return line;
  }
}
