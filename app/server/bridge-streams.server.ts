import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";
import { parseDbId } from "~/lib/ids";
import { bridgeWebCallVoice, CLOSE_TOO_MANY_VOICES, VOICE_SESSIONS_PER_ADDRESS, WEB_VOICE_PATH } from "~/features/agent/web-voice.server";
import { bridgeMediaStream, endBridgedCalls, mediaStreamUrl, qualityWritesSettled } from "~/voice/bridge.server";
import type { BridgeServices } from "~/voice/model-session.server";
import { holdLiveSlot } from "~/platform/data/live-limit.server";
import { bridgeLeases } from "~/voice/bridge-leases.server";
import type { AppServices } from "~/platform/services.server";
import { bridgeStreamsLive } from "~/platform/observability/metrics.server";
import { log, withLogContext } from "~/platform/observability/log.server";

/**
 * The call audio's WebSocket endpoint, `/media-stream/{callId}`: Twilio's signed handshake, then
 * the bridge. The web server serves it, and so does the bridge process (bridge-server.ts). Each
 * open stream keeps its call's bridge lease; `heartbeat` when the calls' streams come to this
 * process (the bridge process, or a web server without MEDIA_STREAM_ORIGIN): it says so in the
 * database while it runs, and calls are dialled only while some bridge does.
 */
export function mediaStreamEndpoint(services: BridgeServices, options: { heartbeat: boolean }) {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  const leases = bridgeLeases(services.db, options);
  return {
    /** Resolves once this process's heartbeat is in the database. */
    started: leases.started,
    /** Any other path is refused, as is a handshake Twilio did not sign. */
    upgrade(request: IncomingMessage, socket: Duplex, head: Buffer) {
      const url = new URL(request.url ?? "/", "http://localhost");
      const callId = parseDbId(/^\/media-stream\/(\d+)$/.exec(url.pathname)?.[1]);
      if (callId === null) {
        socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n");
        return;
      }
      // Twilio signs the handshake over the stream URL it was given (never the request's Host).
      const signature = request.headers["x-twilio-signature"];
      if (!services.telephony.verifySignature(typeof signature === "string" ? signature : null, mediaStreamUrl(services, callId), {})) {
        socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n");
        return;
      }
      sockets.handleUpgrade(request, socket, head, (ws) => {
        leases.hold(callId);
        bridgeStreamsLive.inc({ kind: "phone" });
        ws.once("close", () => {
          bridgeStreamsLive.dec({ kind: "phone" });
          leases.drop(callId);
        });
        withLogContext({ callId }, () => bridgeMediaStream(services, ws, callId));
      });
    },
    /**
     * Ends the calls' streams, then waits for them to close and their quality to be written: a
     * second for the provider's side to answer the close, then their sockets are cut, so no call
     * ends (and writes) after the database is closed. Each bridged call first writes that our side
     * cut it, so Twilio's next question (the <Connect> action) tells the caller, and the call is
     * judged as ours (delivery.ts); none of this app's calls outlives it, timers included.
     */
    async close() {
      await leases.stop();
      await endBridgedCalls(services);
      // Sockets not bridged yet (no "start" read) close as they are.
      await closeClients(sockets);
      await qualityWritesSettled();
    },
  };
}

/**
 * A browser's voice for a web call, `/web-call-stream/{webCallId}`, on the web server (the page's
 * own origin). The conversation's capability token, sent in the stream's "start", is the permission.
 * Before anything else, the visitor's address group takes one of its VOICE_SESSIONS_PER_ADDRESS
 * places (held in the database, so every web process counts them): each socket may become a paid
 * realtime session, so one address may not open them by the dozen. `clientIp` reads the address
 * as the pages do (the trusted proxy hops).
 */
export function webCallStreamEndpoint(services: AppServices, clientIp: (request: IncomingMessage) => string) {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 });
  async function admit(request: IncomingMessage, socket: Duplex, head: Buffer, callId: number) {
    const slot = await holdLiveSlot(services, { name: "voice:address", subject: clientIp(request), limit: VOICE_SESSIONS_PER_ADDRESS });
    // The visitor may have gone while the database answered: nothing to hold the place for.
    if (slot && !socket.writable) return slot.release();
    // A refusal is a WebSocket close with its own code, not an HTTP status: a browser's WebSocket
    // never sees the status of a refused handshake, only that it failed.
    sockets.handleUpgrade(request, socket, head, (ws) => {
      if (!slot) return ws.close(CLOSE_TOO_MANY_VOICES, "too many voice sessions from this address");
      bridgeStreamsLive.inc({ kind: "web" });
      ws.once("close", () => {
        bridgeStreamsLive.dec({ kind: "web" });
        void slot.release();
      });
      bridgeWebCallVoice(services, ws, callId, clientIp(request));
    });
  }
  return {
    /** Takes the upgrade when it is for this endpoint; false leaves it to another. */
    upgrade(request: IncomingMessage, socket: Duplex, head: Buffer) {
      const webCallId = parseDbId(WEB_VOICE_PATH.exec(new URL(request.url ?? "/", "http://localhost").pathname)?.[1]);
      if (webCallId === null) return false;
      admit(request, socket, head, webCallId).catch((error: Error) => {
        log.error("A voice stream could not be admitted: %s", error.message);
        socket.end("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n");
      });
      return true;
    },
    /** Ends the browsers' streams (their calls with them), as the media streams' close does. */
    close: () => closeClients(sockets),
  };
}

/** Asks every client to close, gives them a second to answer, then cuts the rest; resolves once all are closed. */
async function closeClients(sockets: WebSocketServer) {
  const clients = [...sockets.clients];
  const closed = Promise.all(clients.map((client) => new Promise((resolve) => client.once("close", resolve))));
  for (const client of clients) client.close(1001, "server shutting down");
  sockets.close();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([closed, new Promise((resolve) => (timer = setTimeout(resolve, 1000)))]);
  clearTimeout(timer);
  for (const client of clients) if (client.readyState !== WebSocket.CLOSED) client.terminate();
  await closed;
}
