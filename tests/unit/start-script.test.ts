import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain script of scripts/, without types
import { reactRouterCli } from "../../scripts/react-router-cli.js";

const root = path.resolve(import.meta.dirname, "../..");

describe("npm start on a fresh clone", () => {
  it("builds with the React Router CLI the installed package provides", async () => {
    // A clone has no build/: start.js runs this CLI first (it once named a file React Router 8 no longer ships).
    const { stdout } = await promisify(execFile)(process.execPath, [reactRouterCli(root) as string, "--version"], { cwd: root });
    const { version } = JSON.parse(await readFile(path.join(root, "node_modules/@react-router/dev/package.json"), "utf8")) as {
      version: string;
    };
    expect(stdout.trim()).toBe(version);
  });
});
