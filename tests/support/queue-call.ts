import { queueCall, type CallRequest } from "~/calls/gate.server";
import type { AppServices } from "~/platform/services.server";

/**
 * A call queued through the call gate as a signed-in owner's would be (no visitor's address to
 * count), for tests of the engine itself; a refusal fails the test.
 */
export async function queueTestCall(services: AppServices, request: Omit<CallRequest, "origin">) {
  const queued = await queueCall(services, { ...request, origin: { kind: "owner", address: null, session: "test" } });
  if (!queued.ok) throw new Error(`The call gate refused the call: ${queued.reason}`);
  return queued.call;
}
