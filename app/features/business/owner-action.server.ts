import { data, redirect, type RouterContextProvider } from "react-router";
import { bookingIntents, handleBookingAction } from "~/features/business/bookings.server";
import { afterChange, handleDashboardAction } from "~/features/business/dashboard.server";
import { ownerForAction } from "~/features/business/owner.server";

/**
 * Every form of the owner's app posts here, whichever page it is on: a booking's confirm, cancel,
 * move or no-show, and the services, hours and settings forms. A saved change redirects (post,
 * redirect, get) to the page that shows it, with a confirmation code; a refused one is answered 400
 * (or 409 when the booking cannot change so: over, cancelled, or a no-show before its time) with
 * the errors for the page to show beside the fields.
 */
export async function ownerAction({ request, url, context }: { request: Request; url: URL; context: Readonly<RouterContextProvider> }) {
  const owner = await ownerForAction(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  if ((bookingIntents as readonly string[]).includes(intent)) {
    const result = await handleBookingAction(owner, form);
    if (!result.ok) return data(result, { status: result.errors ? 400 : 409 });
    const query = new URLSearchParams();
    for (const kept of ["filter", "page"]) {
      const value = url.searchParams.get(kept);
      if (value) query.set(kept, value);
    }
    query.set("done", result.done);
    query.set("booking", String(result.bookingId));
    return redirect(`${url.pathname}?${query}`);
  }
  const result = await handleDashboardAction(owner.services, owner.t, owner.business.id, form);
  if (result.ok) return redirect(afterChange(result));
  return data(result, { status: 400 });
}
