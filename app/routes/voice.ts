import { redirect } from "react-router";

/** /voice is the spec's other name for the voice settings. */
export function loader() {
  return redirect("/voice-settings", 301);
}
