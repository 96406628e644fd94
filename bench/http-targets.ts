// The pages `bench:http` and `bench:http-paired` measure with a cookie: a returning visitor's `/`
// and booking steps, the signed-in owner's `/` and dashboard.

/** A day and time the demo salon's booking page offers, for the time and details steps. */
export async function freeSlot(appUrl: string, serviceId: number) {
  for (let ahead = 2; ahead <= 31; ahead++) {
    const date = new Date(Date.now() + ahead * 86_400_000).toISOString().slice(0, 10);
    const answer = await fetch(`${appUrl}/api/booking/availability/demo-salon/${date}/${serviceId}`);
    if (answer.status !== 200) continue;
    const free = ((await answer.json()) as { time: string; available: boolean }[]).find((s) => s.available);
    if (free) return { date, time: free.time };
  }
  throw new Error("no free time in the booking window");
}

/** The rows rendered for one person, each with whose cookie it is asked. */
export function cookieTargets(serviceId: number, slot: { date: string; time: string }) {
  const book = "/book/demo-salon";
  return [
    { name: "returning visitor: /", path: "/", who: "visitor" },
    { name: "returning visitor: booking, service step", path: book, who: "visitor" },
    { name: "returning visitor: booking, date step", path: `${book}?service=${serviceId}`, who: "visitor" },
    { name: "returning visitor: booking, time step", path: `${book}?service=${serviceId}&date=${slot.date}`, who: "visitor" },
    {
      name: "returning visitor: booking, details step",
      path: `${book}?service=${serviceId}&date=${slot.date}&time=${encodeURIComponent(slot.time)}`,
      who: "visitor",
    },
    { name: "owner: /", path: "/", who: "owner" },
    { name: "owner: /dashboard", path: "/dashboard", who: "owner" },
  ] as const satisfies readonly { name: string; path: string; who: "visitor" | "owner" }[];
}

/** `--only "a|b"`: the targets whose name holds either part (all of them without it). */
export function chosen<T extends { name: string }>(targets: readonly T[], only: string | undefined) {
  return only ? targets.filter((target) => only.split("|").some((part) => target.name.includes(part))) : [...targets];
}
