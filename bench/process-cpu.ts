import { readFileSync } from "node:fs";

/**
 * CPU seconds a process has used (user and system, all its threads: JIT and GC helpers too), from
 * /proc: null where there is none. On a busy machine a server gets a share of its core, so its
 * rate falls much more than its CPU per answer does.
 */
export function cpuSeconds(pid: number | undefined) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}
