import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/**
 * A port for a process started later whose address another must know first.
 *
 * A port the kernel hands out for `listen(0)` is free only until the next `listen(0)` or outgoing
 * connection of any process takes it again: with the test rounds running side by side, a child
 * once found its port taken before it bound it (CI, 2026-12-03: "Port 41701 is already in use").
 * So the port comes from below the kernel's ephemeral range, which nothing takes by chance, and
 * is reserved by a file every test process on the machine sees, held while this process lives.
 */
export async function freePort(): Promise<number> {
  const [ephemeralLow] = ephemeralRange();
  const low = 20_000;
  const high = Math.max(low + 1000, ephemeralLow) - 1;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (!reserve(port)) continue;
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${low} and ${high} after 200 tries`);
}

const reservations = path.join(os.tmpdir(), "sakina-test-ports");
/** Removed at exit where the process gets one; a test worker killed without one leaves them for the pid check. */
const held: string[] = [];

/** Reserves the port for this process: its file holds our pid, and is taken over once that process is gone. */
function reserve(port: number): boolean {
  mkdirSync(reservations, { recursive: true });
  const file = path.join(reservations, String(port));
  for (let tries = 0; tries < 2; tries++) {
    try {
      writeFileSync(file, String(process.pid), { flag: "wx" });
      if (held.length === 0) process.once("exit", () => held.forEach((f) => rmSync(f, { force: true })));
      held.push(file);
      return true;
    } catch {
      if (alive(Number(readFileSafely(file)))) return false;
      rmSync(file, { force: true });
    }
  }
  return false;
}

function readFileSafely(file: string) {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

function alive(pid: number) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function bindable(port: number): Promise<boolean> {
  const server = net.createServer();
  const bound = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => resolve(true));
  });
  if (bound) await new Promise<void>((resolve) => server.close(() => resolve()));
  return bound;
}

function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    if (low && high) return [low, high];
  } catch {
    // Not Linux: the IANA range, which macOS and Windows use.
  }
  return [49152, 65535];
}
