import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DataDirInUseError, lockDataDir } from "./data-dir-lock.server";

const folders: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sakina-lock-"));
  folders.push(dir);
  return path.join(dir, "pglite");
};

afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the PGlite data folder's lock", () => {
  it("is held while open and removed at the last release", () => {
    const dir = dataDir();
    const release = lockDataDir(dir);
    expect(readFileSync(`${dir}.lock`, "utf8")).toBe(String(process.pid));
    const second = lockDataDir(dir);
    release();
    expect(existsSync(`${dir}.lock`)).toBe(true);
    second();
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });

  it("refuses while another living process holds it", () => {
    const dir = dataDir();
    writeFileSync(`${dir}.lock`, String(process.ppid));
    expect(() => lockDataDir(dir)).toThrow(DataDirInUseError);
    expect(readFileSync(`${dir}.lock`, "utf8")).toBe(String(process.ppid));
  });

  it("takes over the lock of a process that is gone", () => {
    const dir = dataDir();
    const gone = spawnSync(process.execPath, ["-e", "0"]).pid!;
    writeFileSync(`${dir}.lock`, String(gone));
    const release = lockDataDir(dir);
    expect(readFileSync(`${dir}.lock`, "utf8")).toBe(String(process.pid));
    release();
  });
});
