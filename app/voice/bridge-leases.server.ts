import { log } from "~/platform/observability/log.server";
import { randomUUID } from "node:crypto";
import os from "node:os";
import type { Db } from "#models/db";
import { renewBridgeLeases } from "#models/calls";
import { acquireLease, anyLiveLease, liveLeaseCount, releaseLease, renewLease } from "#models/live-leases";

/**
 * A bridge's heartbeat and its calls' leases last this long unless renewed. Renewed every
 * RENEW_EVERY_MS, so a database slow for a few renewals does not end live calls; a process that
 * died stops counting within it (and its calls are reconciled, see the call engine).
 */
export const BRIDGE_LEASE_SECONDS = 30;
const RENEW_EVERY_MS = 5_000;

/**
 * After its stream closes, a call keeps its lease this long: time for what the provider does on
 * its own after the stream (the apology in its voice, the hang-up) before the call counts as
 * nobody's.
 */
const AFTER_STREAM_SECONDS = 60;

/** The heartbeats' kind in live_leases: one row per process that serves the calls' media streams. */
const HEARTBEAT = "bridge:heartbeat";

/**
 * Whether some process that serves the calls' media streams is alive (its heartbeat is fresh): a
 * call dialled while none is would be answered into silence.
 */
export function bridgeReachable(db: Db) {
  return anyLiveLease(db, HEARTBEAT);
}

/**
 * This process's side of the leases, kept in the database for every process to see: the calls
 * whose media stream it holds, each lease renewed while the stream is open, and, where calls'
 * streams come to this process (`heartbeat`), the heartbeat that says a bridge is there.
 */
export function bridgeLeases(db: Db, options: { heartbeat: boolean }) {
  const held = new Set<number>();
  const holder = `${os.hostname()}:${process.pid}:${randomUUID()}`;
  let heartbeatId: number | null = null;
  let failing = false;
  const beat = async () => {
    if (heartbeatId !== null && (await renewLease(db, heartbeatId, BRIDGE_LEASE_SECONDS))) return;
    heartbeatId = await acquireLease(db, { kind: HEARTBEAT, holder, limit: 1, ttlSeconds: BRIDGE_LEASE_SECONDS });
  };
  const renew = async () => {
    try {
      await Promise.all([options.heartbeat ? beat() : null, renewBridgeLeases(db, [...held], BRIDGE_LEASE_SECONDS)]);
      failing = false;
    } catch (error) {
      // Said once per run of failures: the leases run out on their own if it lasts.
      if (!failing) log.warn(`The bridge's leases could not be renewed: ${(error as Error).message.split("\n")[0]}`);
      failing = true;
    }
  };
  const started = renew();
  const timer = setInterval(() => void renew(), RENEW_EVERY_MS);
  timer.unref();
  return {
    /** Resolves once the first heartbeat is written. */
    started,
    /** The call's media stream is open here: its lease is taken at once and renewed while it lasts. */
    hold(callId: number) {
      held.add(callId);
      void renewBridgeLeases(db, [callId], BRIDGE_LEASE_SECONDS).catch(() => {});
    },
    /** The call's stream closed: its lease is left to run out after AFTER_STREAM_SECONDS. */
    drop(callId: number) {
      held.delete(callId);
      void renewBridgeLeases(db, [callId], AFTER_STREAM_SECONDS).catch(() => {});
    },
    /** The process stops bridging (a shutdown): no heartbeat any more, the calls' leases run out. */
    async stop() {
      clearInterval(timer);
      await started;
      if (heartbeatId !== null) await releaseLease(db, heartbeatId).catch(() => {});
    },
  };
}

/** How many bridges are up (fresh heartbeats), for the metrics. */
export function liveBridgeCount(db: Db) {
  return liveLeaseCount(db, HEARTBEAT);
}
