import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import { parseDbId } from "~/lib/ids";
import { bridgeWebCallVoice, WEB_VOICE_PATH } from "~/features/agent/web-voice.server";
import { bridgeMediaStream, mediaStreamUrl, type BridgeServices } from "~/features/voice/bridge.server";
import type { AppServices } from "~/platform/services.server";

/**
 * The call audio's WebSocket endpoint, `/media-stream/{callId}`: Twilio's signed handshake, then
 * the bridge. The web server serves it, and so does the bridge process (bridge-server.ts).
 */
export function mediaStreamEndpoint(services: BridgeServices) {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  return {
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
      sockets.handleUpgrade(request, socket, head, (ws) => bridgeMediaStream(services, ws, callId));
    },
    close() {
      for (const client of sockets.clients) client.close(1001, "server shutting down");
      sockets.close();
    },
  };
}

/**
 * A browser's voice for a web call, `/web-call-stream/{webCallId}`, on the web server (the page's
 * own origin). The conversation's capability token, sent in the stream's "start", is the permission.
 */
export function webCallStreamEndpoint(services: AppServices) {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 });
  return {
    /** Takes the upgrade when it is for this endpoint; false leaves it to another. */
    upgrade(request: IncomingMessage, socket: Duplex, head: Buffer) {
      const webCallId = parseDbId(WEB_VOICE_PATH.exec(new URL(request.url ?? "/", "http://localhost").pathname)?.[1]);
      if (webCallId === null) return false;
      sockets.handleUpgrade(request, socket, head, (ws) => bridgeWebCallVoice(services, ws, webCallId));
      return true;
    },
    close() {
      for (const client of sockets.clients) client.close(1001, "server shutting down");
      sockets.close();
    },
  };
}
