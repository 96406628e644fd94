// The only script of a page that does not load React (its route's handle says `hydrate: false`,
// see app/ui/shell/shell.ts and ADR 0016). The page works as plain HTML; this adds what JavaScript is
// for there, in a couple of kilobytes instead of React's hundred:
// - a link or form that stays on this page (the booking page's steps are all one address) is
//   fetched and its <body> swapped in, so the page does not flash and lose its place;
// - live regions (`[aria-live][id]`) stay the same elements across the swap: what arrives in
//   them is announced, as it would be from a region that was already there;
// - after a swap the focus goes to the error summary if the submit failed, else to the heading
//   that arrived (`[data-focus-heading]`), and the title is the new page's;
// - a submit in flight disables its button (with `data-busy-label`, the button says so);
// - on a page that shows times in a zone of the visitor's choice (`[data-zone-default]`, the
//   booking page), the browser's own zone is the choice until the visitor makes one (`tz`);
// - the booking calendar's days reached with the arrow keys (the ARIA grid pattern);
// - the toast's dismiss button, F8 to reach the toast, Escape to close the phone menu.
// Anything else (another page, another language, a file, another site) is left to the browser.
(() => {
  const root = document.documentElement;
  const ARRIVAL_KEY = "sakina.arrival";
  let busy = false;
  /** The address (without its #fragment) whose page is shown: a change of fragment alone is not a visit. */
  let shown = withoutHash(location.href);

  function withoutHash(href) {
    const url = new URL(href, location.href);
    url.hash = "";
    return url.href;
  }

  /** The browser's time zone, when this page offers times in the visitor's zone and it differs. */
  function visitorZone() {
    const fallback = document.querySelector("[data-zone-default]")?.getAttribute("data-zone-default");
    if (!fallback) return null;
    try {
      const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
      return zone && zone !== fallback ? zone : null;
    } catch {
      return null;
    }
  }

  /** `params` with the browser's zone added, unless a zone is named already. */
  function withZone(params) {
    const zone = visitorZone();
    if (zone && !params.has("tz")) params.set("tz", zone);
    return params;
  }

  function keptRegionIds(scope) {
    return new Set([...scope.querySelectorAll("[aria-live][id]")].map((region) => region.id));
  }

  function syncAttributes(current, next) {
    for (const { name } of [...current.attributes]) if (!next.hasAttribute(name)) current.removeAttribute(name);
    for (const { name, value } of [...next.attributes]) if (current.getAttribute(name) !== value) current.setAttribute(name, value);
  }

  /**
   * Makes `current`'s children those of `next`, keeping in place (never detached) every live
   * region both have, and each element on the way down to one.
   */
  function patch(current, next, kept) {
    const pairs = new Map();
    for (const child of next.children) {
      const region = child.matches("[aria-live][id]") ? child : child.querySelector("[aria-live][id]");
      if (!region || !kept.has(region.id)) continue;
      const old = document.getElementById(region.id);
      const oldChild = old && [...current.children].find((candidate) => candidate.contains(old));
      if (oldChild && ![...pairs.values()].includes(oldChild)) pairs.set(child, oldChild);
    }
    const stays = new Set(pairs.values());
    for (const child of [...current.childNodes]) if (!stays.has(child)) child.remove();
    let anchor = null;
    for (const child of [...next.childNodes]) {
      const old = pairs.get(child);
      if (old) {
        syncAttributes(old, child);
        if (old.matches("[aria-live][id]") && old.id === child.id) old.replaceChildren(...child.childNodes);
        else patch(old, child, kept);
        anchor = old;
      } else {
        if (anchor) anchor.after(child);
        else current.prepend(child);
        anchor = child;
      }
    }
  }

  function headingKey(heading) {
    return `${heading.tagName}|${heading.textContent.trim()}`;
  }

  function arrive() {
    for (const button of document.querySelectorAll("[data-toast-dismiss]")) button.hidden = false;
    calendarGrids();
  }

  const DAY_BUTTONS = "[data-month] table button[name=date]";

  /**
   * The booking calendar as the ARIA grid pattern: one day is in the Tab order (the chosen day,
   * else the first bookable one) and the arrow keys move between the days (the direction of the
   * page's reading for left and right), Home and End to the week's first and last, Page Up and
   * Page Down a month. Without this script every day is a button of its own in the Tab order.
   */
  function calendarGrids() {
    const days = [...document.querySelectorAll(DAY_BUTTONS)];
    if (days.length === 0) return;
    for (const table of document.querySelectorAll("[data-month] table")) table.setAttribute("role", "grid");
    const current = days.find((day) => day.getAttribute("aria-current") === "date") ?? days[0];
    for (const day of days) day.tabIndex = day === current ? 0 : -1;
  }

  /** Days between two "YYYY-MM-DD" dates. */
  function dayDistance(from, to) {
    return (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;
  }

  function moveInCalendar(event) {
    const day = event.target instanceof Element ? event.target.closest(DAY_BUTTONS) : null;
    if (!day) return false;
    const days = [...document.querySelectorAll(DAY_BUTTONS)];
    const index = days.indexOf(day);
    const forward = root.dir === "rtl" ? "ArrowLeft" : "ArrowRight";
    const backward = root.dir === "rtl" ? "ArrowRight" : "ArrowLeft";
    const row = [...day.closest("tr").querySelectorAll("button[name=date]")];
    /** The first bookable day at least `offset` days on (or back), in the window. */
    const by = (offset) =>
      offset > 0
        ? days.find((other) => dayDistance(day.value, other.value) >= offset)
        : days.findLast((other) => dayDistance(day.value, other.value) <= offset);
    const target = {
      [forward]: days[index + 1],
      [backward]: days[index - 1],
      ArrowDown: by(7),
      ArrowUp: by(-7),
      Home: row[0],
      End: row.at(-1),
      PageDown: by(28),
      PageUp: by(-28),
    }[event.key];
    if (!(event.key in { [forward]: 1, [backward]: 1, ArrowDown: 1, ArrowUp: 1, Home: 1, End: 1, PageDown: 1, PageUp: 1 })) return false;
    event.preventDefault();
    if (!target) return true;
    for (const other of days) other.tabIndex = other === target ? 0 : -1;
    target.focus();
    return true;
  }

  /** Where the keyboard is, as "form n, control m", to find the same control in the next page. */
  function controlPlace(element) {
    const form = element?.form;
    if (!form) return null;
    return { form: [...document.forms].indexOf(form), control: [...form.elements].indexOf(element) };
  }

  /** The ticked boxes of a submitted form, to tick again when the server answers with its errors. */
  function ticked(form) {
    if (!form?.id) return null;
    const boxes = [...form.querySelectorAll("input[type=checkbox]")];
    return { id: form.id, checked: new Set(boxes.filter((box) => box.checked).map((box) => `${box.name}=${box.value}`)) };
  }

  /** Fetches `url` and shows it in place; anything this page cannot show is a normal navigation. */
  /** `quiet`: the same step shown again (in the browser's zone): the focus and history stay. */
  async function visit(url, init, fallback, from = controlPlace(document.activeElement), boxes = null, quiet = false) {
    busy = true;
    let response;
    try {
      response = await fetch(url, { ...init, credentials: "same-origin", headers: { Accept: "text/html" } });
    } catch {
      busy = false;
      fallback();
      return;
    }
    const type = response.headers.get("Content-Type") ?? "";
    const html = type.includes("text/html") ? await response.text() : "";
    const next = html ? new DOMParser().parseFromString(html, "text/html") : null;
    const sameKind =
      next &&
      next.documentElement.hasAttribute("data-enhanced") &&
      next.documentElement.lang === root.lang &&
      next.documentElement.dir === root.dir;
    if (!sameKind) {
      // A page of another kind or language: the browser loads it (a POST was answered already),
      // and its heading takes the focus as the next step's would (app/ui/form/focus.tsx reads this).
      try {
        sessionStorage.setItem(ARRIVAL_KEY, String(Date.now()));
      } catch {
        // Storage refused: the page still loads, read from the top.
      }
      location.assign(response.url);
      return;
    }
    const before = new Set([...document.querySelectorAll("[data-focus-heading]")].map(headingKey));
    const onHeading = document.activeElement?.hasAttribute("data-focus-heading") ?? false;
    const kept = keptRegionIds(next);
    for (const id of [...kept]) if (!document.getElementById(id)) kept.delete(id);
    patch(document.body, next.body, kept);
    syncAttributes(document.body, next.body);
    document.title = next.title;
    const description = next.querySelector('meta[name="description"]');
    document.querySelector('meta[name="description"]')?.setAttribute("content", description?.getAttribute("content") ?? "");
    const target = withoutHash(response.url);
    if (init.method === "GET" || response.redirected) {
      if (target === shown || quiet) history.replaceState(null, "", response.url);
      else history.pushState(null, "", response.url);
      shown = target;
    }
    busy = false;
    // The same form answered with errors: what the visitor ticked stays ticked (the server sends
    // back what was typed; a checkbox it leaves for the visitor).
    const again = boxes && !response.redirected ? document.getElementById(boxes.id) : null;
    for (const box of again?.querySelectorAll("input[type=checkbox]") ?? []) {
      if (boxes.checked.has(`${box.name}=${box.value}`)) box.checked = true;
    }
    arrive();
    const headings = [...document.querySelectorAll("[data-focus-heading]")];
    if (quiet) {
      if (onHeading) headings[0]?.focus();
      return;
    }
    const toast = document.getElementById("toast-viewport");
    // The next step's heading; on the same page again, the message it brought, else the control
    // the visitor was on (a form answered with an error beside it).
    const focus =
      document.querySelector("[data-error-summary]") ??
      headings.find((heading) => !before.has(headingKey(heading))) ??
      (toast?.textContent?.trim() ? toast : null) ??
      (from ? document.forms[from.form]?.elements[from.control] : null) ??
      headings[0] ??
      document.getElementById("main");
    focus?.focus();
  }

  function here(url) {
    return url.origin === location.origin && url.pathname === location.pathname;
  }

  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest("a[href]") : null;
    if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    if (link.target || link.hasAttribute("download")) return;
    const url = new URL(link.href);
    if (!here(url) || (url.hash && withoutHash(url.href) === shown)) return;
    event.preventDefault();
    if (busy) return;
    withZone(url.searchParams);
    void visit(url.href, { method: "GET" }, () => location.assign(url.href));
  });

  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || event.defaultPrevented || form.hasAttribute("data-native") || form.target) return;
    const submitter = event.submitter ?? null;
    const method = (submitter?.getAttribute("formmethod") ?? form.getAttribute("method") ?? "get").toUpperCase();
    const action = new URL(submitter?.getAttribute("formaction") ?? form.action, location.href);
    if (!here(action) || form.enctype === "multipart/form-data" || (method !== "GET" && method !== "POST")) return;
    event.preventDefault();
    if (busy) return;
    const fields = withZone(new URLSearchParams(new FormData(form, submitter)));
    const from = controlPlace(submitter ?? document.activeElement);
    if (submitter instanceof HTMLButtonElement || submitter instanceof HTMLInputElement) {
      if (submitter.dataset.busyLabel) submitter.textContent = submitter.dataset.busyLabel;
      submitter.disabled = true;
    }
    form.setAttribute("aria-busy", "true");
    const native = () => {
      form.setAttribute("data-native", "");
      form.requestSubmit(submitter);
    };
    if (method === "GET") {
      action.search = fields.toString();
      void visit(action.href, { method }, native, from);
    } else {
      void visit(action.href, { method, body: fields }, native, from, ticked(form));
    }
  });

  // Back and Forward: the page at that address, as the browser would load it. A document the
  // browser kept in its back-forward cache comes back as it was last shown, which may be a later
  // step than its address says: that one is loaded afresh too.
  window.addEventListener("popstate", () => {
    if (withoutHash(location.href) !== shown) location.reload();
  });
  window.addEventListener("pageshow", (event) => {
    if (event.persisted && withoutHash(location.href) !== shown) location.reload();
  });

  document.addEventListener("click", (event) => {
    const dismiss = event.target instanceof Element ? event.target.closest("[data-toast-dismiss]") : null;
    if (dismiss) document.getElementById("toast-viewport")?.replaceChildren();
  });

  document.addEventListener("keydown", (event) => {
    if (moveInCalendar(event)) return;
    if (event.key === "F8") document.getElementById("toast-viewport")?.focus();
    if (event.key === "Escape") {
      const menu = document.querySelector("details[data-menu][open]");
      if (menu) {
        menu.open = false;
        menu.querySelector("summary")?.focus();
      }
    }
  });

  arrive();
  // Times shown in the business's zone to a browser in another: the same step again, in the
  // browser's zone (the list of zones then shows it chosen).
  const url = new URL(location.href);
  if (document.getElementById("booking-zone") && !url.searchParams.has("tz") && visitorZone()) {
    withZone(url.searchParams);
    void visit(url.href, { method: "GET" }, () => {}, null, null, true);
  }
  // An answer to a submit made before this script ran: the summary speaks first. A page reached
  // as the next step of another page's flow: its heading.
  let continues = false;
  try {
    continues = Date.now() - Number(sessionStorage.getItem(ARRIVAL_KEY)) < 10_000;
    sessionStorage.removeItem(ARRIVAL_KEY);
  } catch {
    // Storage refused: read from the top.
  }
  (document.querySelector("[data-error-summary]") ?? (continues ? document.querySelector("[data-focus-heading]") : null))?.focus();
  root.dataset.hydrated = "true";
})();
