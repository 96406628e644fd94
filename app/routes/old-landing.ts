import { redirect } from "react-router";

/** Old links to the previous landing page keep working. */
export function loader() {
  return redirect("/", 301);
}
