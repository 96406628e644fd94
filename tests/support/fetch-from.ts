import http from "node:http";

/**
 * A fetch that connects from a given local address (127.0.0.2, 127.0.0.3 … all reach the
 * loopback on Linux), so a test can be several visitors as the server's socket sees them,
 * without any forwarded header. Enough of fetch for the test clients: manual redirects only.
 */
export function fetchFrom(localAddress: string): typeof fetch {
  const agent = new http.Agent({ localAddress, keepAlive: false });
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const headers = new Headers(init.headers);
    const body = init.body == null ? undefined : String(init.body);
    return new Promise<Response>((resolve, reject) => {
      const request = http.request(url, { method: init.method ?? "GET", headers: Object.fromEntries(headers), agent }, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("error", reject);
        incoming.on("end", () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) {
            for (const one of Array.isArray(value) ? value : [value ?? ""]) responseHeaders.append(name, one);
          }
          const status = incoming.statusCode ?? 500;
          const empty = status === 204 || status === 304;
          resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers: responseHeaders }));
        });
      });
      request.on("error", reject);
      request.end(body);
    });
  }) as typeof fetch;
}
