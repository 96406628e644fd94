import type { Route } from "./+types/cancel";
import { subscriptionChange } from "~/features/subscriptions/api.server";
import { methodNotAllowed } from "~/platform/http/api.server";

/** POST /api/subscription/cancel { userId }: cancelled at the end of the period; access continues until then. */
export const action = ({ request, context }: Route.ActionArgs) => subscriptionChange(context, request, "cancel");
export const loader = methodNotAllowed;
