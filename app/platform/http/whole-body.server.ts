/**
 * A page rendered whole (app/entry.server.tsx) is already its bytes when it becomes a Response;
 * the server then compresses and sends it whole (request-handler.server.ts). Reading it back out
 * of the Response's stream cost about as much again as making them (undici's body reader, chunk by
 * chunk): the bytes are kept beside the Response instead, for the server to take. The Response
 * still carries them as its body, so whatever reads it the ordinary way (or wraps it in another
 * Response, which this does not know) gets the same page.
 */
const bodies = new WeakMap<Response, Uint8Array<ArrayBuffer>>();

export function wholeResponse(body: Uint8Array<ArrayBuffer>, init: ResponseInit): Response {
  const response = new Response(body, init);
  bodies.set(response, body);
  return response;
}

/** The body of `response` as bytes: those it was made with, when it was made by `wholeResponse` and not read since. */
export async function bodyBytes(response: Response): Promise<Buffer> {
  const known = bodies.get(response);
  if (known && !response.bodyUsed) return Buffer.from(known.buffer, known.byteOffset, known.byteLength);
  return Buffer.from(await response.arrayBuffer());
}
