import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { freePort } from "./ports";

const ephemeralLow = (() => {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
  } catch {
    return 49152;
  }
})();

// A test harness that hands a child a port must not hand it one the kernel can give away meanwhile.
describe("freePort", () => {
  it("gives ports below the kernel's ephemeral range, none twice, that can be bound", async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(new Set(ports).size).toBe(20);
    for (const port of ports) expect(port).toBeLessThan(ephemeralLow);
  });

  it("never gives another test process a port this one holds", async () => {
    const mine = new Set(await Promise.all(Array.from({ length: 50 }, () => freePort())));
    const script = `import { freePort } from ${JSON.stringify(path.join(import.meta.dirname, "ports.ts"))};
      const ports = []; for (let i = 0; i < 200; i++) ports.push(await freePort()); console.log(JSON.stringify(ports));`;
    const child = spawnSync(process.execPath, ["--experimental-strip-types", "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(child.stderr.replace(/.*ExperimentalWarning.*\n?|.*--trace-warnings.*\n?/g, "")).toBe("");
    const theirs: number[] = JSON.parse(child.stdout);
    expect(theirs).toHaveLength(200);
    expect(theirs.filter((port) => mine.has(port))).toEqual([]);
  });
});
