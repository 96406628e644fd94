// `npm run bench:http-paired -- --before DIR --seeded DIR`: the CPU each page costs on this build
// against another build of the app (DIR, a checkout with its own `npm run build`), both servers up
// at once on one core, sent the same batches in turn. On a shared machine a row of `bench:http`
// swings by a third from run to run; batches in turn see the same machine, so their ratio holds.
//
//   --seeded DIR   the data `npm run bench:http -- --seeded DIR` made (each server gets a copy)
//   --rounds 10    pairs of batches per page; --batch 200 requests a batch; --only "a|b" as bench:http
//
// Prints, per page, the median CPU µs per answer of each build and the median of the pairs' ratios.
import { spawn, type ChildProcess } from "node:child_process";
import { cp, mkdtemp, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { demoOwnerPassword } from "../tests/support/demo-owner";
import { httpClient } from "../tests/support/http-client";
import { cpuSeconds } from "./process-cpu";
import { chosen, cookieTargets, freeSlot } from "./http-targets";

const argument = (name: string, fallback?: string) => {
  const index = process.argv.indexOf(`--${name}`);
  const value = index > 0 ? process.argv[index + 1] : fallback;
  if (value === undefined) throw new Error(`--${name} is required`);
  return value;
};
const after = path.resolve(import.meta.dirname, "..");
const before = path.resolve(argument("before"));
const seeded = path.resolve(argument("seeded"));
const rounds = Number(argument("rounds", "10"));
const batch = Number(argument("batch", "200"));
const only = argument("only", "");

interface Server {
  name: string;
  url: string;
  child: ChildProcess;
  visitor: string;
  owner: string;
}

async function start(name: string, root: string): Promise<Server> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `sakina-paired-${name}-`));
  await cp(seeded, dataDir, { recursive: true });
  const child = spawn("taskset", ["-c", "0", process.execPath, "server.js"], {
    cwd: root,
    env: { PATH: process.env.PATH, NODE_ENV: "production", PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, SEED_DEMO_DATA: "false" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  process.on("exit", () => child.kill("SIGTERM"));
  const url = await new Promise<string>((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Open: +(http:\/\/[^\s]+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.on("exit", (code) => reject(new Error(`${name} exited with ${code}: ${output}`)));
  });
  const first = await fetch(`${url}/`);
  const visitor = first.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
  const ownerClient = httpClient(url, { localAddress: "127.0.0.251" });
  const login = await ownerClient.postJson("/api/auth/login", {
    email: "demo@sakina.app",
    password: await demoOwnerPassword(url, dataDir),
  });
  if (login.status !== 200) throw new Error(`${name}: the demo owner's login answered ${login.status}`);
  const owner = [...ownerClient.jar].map(([key, value]) => `${key}=${value}`).join("; ");
  return { name, url, child, visitor, owner };
}

/** CPU µs per answer of one batch, sent with four connections. */
async function cpuPerAnswer(server: Server, target: string, who: "visitor" | "owner") {
  const headers = { "accept-encoding": "gzip, br", cookie: server[who] };
  const cpuBefore = cpuSeconds(server.child.pid)!;
  const result = await autocannon({ url: `${server.url}${target}`, connections: 4, amount: batch, headers });
  const cpuAfter = cpuSeconds(server.child.pid)!;
  if (result.non2xx + result.errors > 0) throw new Error(`${server.name} ${target}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return ((cpuAfter - cpuBefore) * 1e6) / batch;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const servers = [await start("after", after), await start("before", before)];
const serviceId = Number(await readFile(path.join(seeded, "service-id"), "utf8"));
const targets = chosen(cookieTargets(serviceId, await freeSlot(servers[0]!.url, serviceId)), only);

console.log(`${rounds} pairs of ${batch}-request batches per page, both servers on CPU 0, Node ${process.version}`);
console.log(`after: ${after}\nbefore: ${before}\n`);
console.log("| request | CPU µs per answer, after | before | after / before (median of pairs, min–max) |");
console.log("|---|---|---|---|");
for (const target of targets) {
  // Warmed up: both servers' code compiled for this page before anything is counted.
  for (const server of servers) await cpuPerAnswer(server, target.path, target.who);
  const measured = { after: [] as number[], before: [] as number[], ratios: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    // Each pair in the other order from the last: neither build always goes first.
    const order = round % 2 === 0 ? servers : [...servers].reverse();
    const pair: Record<string, number> = {};
    for (const server of order) pair[server.name] = await cpuPerAnswer(server, target.path, target.who);
    measured.after.push(pair.after!);
    measured.before.push(pair.before!);
    measured.ratios.push(pair.after! / pair.before!);
  }
  const ratios = [...measured.ratios].sort((a, b) => a - b);
  console.log(
    `| ${target.name} | ${median(measured.after).toFixed(0)} | ${median(measured.before).toFixed(0)} | ${median(ratios).toFixed(2)} (${ratios[0]!.toFixed(2)}–${ratios.at(-1)!.toFixed(2)}) |`,
  );
}
for (const server of servers) server.child.kill("SIGTERM");
