import { redirect } from "react-router";

/**
 * /voice-settings (DESIGN.md section 3): the voice and language of the business's confirmation
 * calls live in the owner's settings today; speed, creativity and "Test Voice" are not built yet.
 */
export function loader() {
  return redirect("/dashboard/settings#settings-voice", 302);
}
