import type { Route } from "./+types/upgrade";
import { subscriptionChange } from "~/features/subscriptions/api.server";
import { methodNotAllowed } from "~/platform/http/api.server";

/** POST /api/subscription/upgrade { userId }: the trial ends now and billing starts (30 calls a month). */
export const action = ({ request, context }: Route.ActionArgs) => subscriptionChange(context, request, "upgrade");
export const loader = methodNotAllowed;
