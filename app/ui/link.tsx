import { createContext, useContext, type Ref } from "react";
import {
  Form as RouterForm,
  Link as RouterLink,
  NavLink as RouterNavLink,
  UNSAFE_NavigationContext as NavigationContext,
  UNSAFE_RouteContext as RouteContext,
  useLocation,
  type FormProps,
  type LinkProps,
  type NavLinkProps,
} from "react-router";

/**
 * Whether this is the server's render of a page (app/entry.server.tsx says true; in the browser it
 * is false). There a link or a form is only its markup: its click and submit handlers are React's
 * in the browser, which hydrates the same <a> and <form> (the markup is React Router's own, byte for
 * byte, see link.test.tsx), and on a page that loads no React they never run.
 */
export const ServerRenderContext = createContext(false);

/**
 * React Router's <Link>, the same markup for less work on the server: there it is only its <a>,
 * whose address is the link's own when that is a plain absolute path. React Router resolves every
 * link's path against the matched routes (a tenth of a public page's render in a profile, and of
 * the owner's list of 25 bookings) and sets up click and prefetch handlers that only the browser
 * runs. Anything else (a relative path, an object, prefetching, a mask) goes to React Router's.
 */
export function Link({ ref, ...props }: LinkProps & { ref?: Ref<HTMLAnchorElement> }) {
  const onServer = useContext(ServerRenderContext);
  const { basename } = useContext(NavigationContext);
  if (!onServer || basename !== "/" || !isPlain(props)) return <RouterLink ref={ref} {...props} />;
  return plainAnchor(props);
}

/**
 * React Router's <Form>, written on the server as the plain <form> it renders there (the owner's
 * list has two on each of its 25 rows): the method as React Router writes it, the action (a plain
 * absolute path as it is; without one, the current route's path and the page's query, as React
 * Router's useFormAction makes it), the rest of the props, the discovery mark. A relative action
 * goes to React Router's.
 */
export function Form({ ref, ...props }: FormProps & { ref?: Ref<HTMLFormElement> }) {
  const onServer = useContext(ServerRenderContext);
  const { basename } = useContext(NavigationContext);
  const { matches } = useContext(RouteContext);
  const location = useLocation();
  const action =
    !onServer || basename !== "/"
      ? null
      : props.action === undefined
        ? currentRouteAction(matches, location)
        : typeof props.action === "string" && isPlain({ to: props.action })
          ? props.action
          : null;
  if (action === null) return <RouterForm ref={ref} {...props} />;
  const {
    discover = "render",
    fetcherKey: _fetcherKey,
    navigate: _navigate,
    reloadDocument: _reloadDocument,
    replace: _replace,
    state: _state,
    method = "get",
    action: _action,
    onSubmit: _onSubmit,
    relative: _relative,
    preventScrollReset: _preventScrollReset,
    viewTransition: _viewTransition,
    defaultShouldRevalidate: _defaultShouldRevalidate,
    ...rest
  } = props;
  return (
    <form
      method={method.toLowerCase() === "get" ? "get" : "post"}
      action={action}
      {...rest}
      data-discover={discover === "render" ? "true" : undefined}
    />
  );
}

/**
 * Where a form without an action posts, as React Router's useFormAction works it out: the path of
 * the deepest route that has one (its trailing slash as the page's), the page's query, and for an
 * index route `?index` first.
 */
function currentRouteAction(
  matches: readonly { pathname: string; route: { path?: string; index?: boolean } }[],
  location: { pathname: string; search: string },
) {
  const deepest = matches.at(-1);
  if (!deepest) return null;
  const withPath = matches.filter((match, index) => index === 0 || Boolean(match.route.path));
  let pathname = (withPath.at(-1)?.pathname ?? "/").replace(/\/+$/, "") || "/";
  if (!pathname.endsWith("/") && location.pathname.endsWith("/")) pathname += "/";
  let search = location.search;
  const params = new URLSearchParams(search);
  const indexValues = params.getAll("index");
  if (indexValues.some((value) => value === "")) {
    params.delete("index");
    for (const value of indexValues.filter(Boolean)) params.append("index", value);
    const query = params.toString();
    search = query ? `?${query}` : "";
  }
  if (deepest.route.index) search = search ? search.replace(/^\?/, "?index&") : "?index";
  return pathname + (search && search !== "?" ? search : "");
}

/**
 * React Router's <NavLink> (the current page's link marked `aria-current="page"` and given its
 * active look), written as a plain <a> on the server, as `Link` is.
 */
export function NavLink({ ref, ...props }: NavLinkProps & { ref?: Ref<HTMLAnchorElement> }) {
  const onServer = useContext(ServerRenderContext);
  const { basename } = useContext(NavigationContext);
  const location = useLocation();
  if (!onServer || basename !== "/" || !isPlain(props)) return <RouterNavLink ref={ref} {...props} />;
  const {
    "aria-current": ariaCurrentProp = "page",
    caseSensitive = false,
    className: classNameProp = "",
    end = false,
    style: styleProp,
    to,
    viewTransition,
    children,
    ...rest
  } = props;
  // React Router's rule, on the server (nothing is pending or in transition there).
  const path = pathOf(to as string);
  const toPathname = caseSensitive ? path : path.toLowerCase();
  const locationPathname = caseSensitive ? location.pathname : location.pathname.toLowerCase();
  const endSlashPosition = toPathname !== "/" && toPathname.endsWith("/") ? toPathname.length - 1 : toPathname.length;
  const isActive =
    locationPathname === toPathname ||
    (!end && locationPathname.startsWith(toPathname) && locationPathname.charAt(endSlashPosition) === "/");
  const renderProps = { isActive, isPending: false, isTransitioning: false };
  const className =
    typeof classNameProp === "function"
      ? classNameProp(renderProps)
      : [classNameProp, isActive ? "active" : null].filter(Boolean).join(" ");
  // The attributes in React Router's order: NavLink's own, then what its Link adds.
  return plainAnchor({
    ...rest,
    "aria-current": isActive ? ariaCurrentProp : undefined,
    className,
    style: typeof styleProp === "function" ? styleProp(renderProps) : styleProp,
    to,
    viewTransition,
    children: typeof children === "function" ? children(renderProps) : children,
  });
}

/**
 * A path React Router would write unchanged: absolute, without "." or ".." segments, doubled or
 * back slashes, characters a URL escapes, or an empty "?" or "#" (which it drops).
 */
const PLAIN_PATH = /^(?:\/[\w\-~!$&'()*+,;=:@.]+)*\/?$/;
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:\/|$)/;

function isPlain({ to, prefetch, mask }: Pick<LinkProps, "to" | "prefetch" | "mask">) {
  if (typeof to !== "string" || (prefetch !== undefined && prefetch !== "none") || mask !== undefined) return false;
  const { path, search, hash } = parts(to);
  return path.startsWith("/") && PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path) && search !== "?" && hash !== "#";
}

function parts(to: string) {
  const hashAt = to.indexOf("#");
  const beforeHash = hashAt < 0 ? to : to.slice(0, hashAt);
  const searchAt = beforeHash.indexOf("?");
  return {
    path: searchAt < 0 ? beforeHash : beforeHash.slice(0, searchAt),
    search: searchAt < 0 ? "" : beforeHash.slice(searchAt),
    hash: hashAt < 0 ? "" : to.slice(hashAt),
  };
}

const pathOf = (to: string) => parts(to).path;

/** The <a> React Router's Link renders on the server for a plain path: its props in its order. */
function plainAnchor({
  to,
  discover = "render",
  prefetch: _prefetch,
  relative: _relative,
  reloadDocument: _reloadDocument,
  replace: _replace,
  mask: _mask,
  state: _state,
  target,
  preventScrollReset: _preventScrollReset,
  viewTransition: _viewTransition,
  defaultShouldRevalidate: _defaultShouldRevalidate,
  onClick: _onClick,
  children,
  ...rest
}: LinkProps) {
  return (
    <a {...rest} href={to as string} target={target} data-discover={discover === "render" ? "true" : undefined}>
      {children}
    </a>
  );
}
