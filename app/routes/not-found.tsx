import { data } from "react-router";

/** Any path no other route claims: the root error boundary renders "Page not found" with a 404. */
export function loader() {
  throw data(null, { status: 404 });
}

/** A POST, PUT or DELETE to an unknown address is just as unknown: 404, not 405. */
export function action() {
  throw data(null, { status: 404 });
}

export default function NotFound() {
  return null;
}
