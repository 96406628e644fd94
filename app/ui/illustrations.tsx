/**
 * Sakina's illustrations: flat shapes in the palette's teal, sand and apricot, drawn for this
 * product (no stock art). They are decoration (hidden from screen readers); the page's text says
 * everything they show. They scale with their container's width.
 */

/** An AI listener on the phone, at any hour: for the emotional-support pages. */
export function ListeningIllustration({ className = "" }: { className?: string }) {
  return (
    <svg aria-hidden="true" viewBox="0 0 400 320" className={`h-auto w-full ${className}`}>
      <circle cx="200" cy="165" r="140" className="fill-apricot-100" />
      <path d="M318 52a30 30 0 1 0 26 46 25 25 0 1 1-26-46z" className="fill-apricot-400" />
      <circle cx="270" cy="58" r="4" className="fill-apricot-400" />
      <circle cx="352" cy="132" r="3" className="fill-apricot-400" />
      <circle cx="78" cy="84" r="3.5" className="fill-teal-600" />
      {/* Phone */}
      <rect x="92" y="96" width="112" height="190" rx="22" className="fill-teal-800" />
      <rect x="102" y="112" width="92" height="150" rx="10" className="fill-teal-50" />
      <circle cx="148" cy="164" r="24" className="fill-teal-700" />
      <path
        d="M138 160c4 9 9 14 20 18M140 154l4 5M158 172l5 4"
        className="stroke-white"
        strokeWidth="4"
        strokeLinecap="round"
        fill="none"
      />
      <rect x="122" y="204" width="52" height="8" rx="4" className="fill-teal-200" />
      <rect x="132" y="220" width="32" height="8" rx="4" className="fill-teal-200" />
      <rect x="134" y="270" width="28" height="6" rx="3" className="fill-teal-600" />
      {/* Sound waves */}
      <path
        d="M222 150a40 40 0 0 1 0 44M238 136a62 62 0 0 1 0 72"
        className="stroke-teal-700"
        strokeWidth="6"
        strokeLinecap="round"
        fill="none"
      />
      {/* Speech bubbles */}
      <path
        d="M250 170h96a16 16 0 0 1 16 16v34a16 16 0 0 1-16 16h-70l-20 16v-16h-6a16 16 0 0 1-16-16v-34a16 16 0 0 1 16-16z"
        className="fill-white"
      />
      <circle cx="282" cy="203" r="6" className="fill-teal-600" />
      <circle cx="302" cy="203" r="6" className="fill-teal-600" />
      <circle cx="322" cy="203" r="6" className="fill-teal-600" />
      <path d="M306 118a14 14 0 0 1 22 0 14 14 0 0 1 22 0c8 10 0 22-22 36-22-14-30-26-22-36z" className="fill-apricot-500" />
    </svg>
  );
}

/** A booking on a calendar and the AI's call that confirms it: for the business pages. */
export function BookingCallIllustration({ className = "" }: { className?: string }) {
  const slots = [0, 1, 2, 3].flatMap((column) => [0, 1, 2].map((row) => ({ column, row })));
  return (
    <svg aria-hidden="true" viewBox="0 0 400 320" className={`h-auto w-full ${className}`}>
      <circle cx="200" cy="165" r="140" className="fill-teal-50" />
      <circle cx="70" cy="74" r="5" className="fill-apricot-400" />
      <circle cx="348" cy="262" r="4" className="fill-apricot-400" />
      {/* Calendar */}
      <rect x="56" y="70" width="208" height="184" rx="20" className="fill-white stroke-sand-300" strokeWidth="2" />
      <path d="M56 90a20 20 0 0 1 20-20h168a20 20 0 0 1 20 20v22H56z" className="fill-teal-700" />
      <rect x="94" y="56" width="12" height="30" rx="6" className="fill-teal-900" />
      <rect x="214" y="56" width="12" height="30" rx="6" className="fill-teal-900" />
      {slots.map(({ column, row }) => {
        const chosen = column === 2 && row === 1;
        return (
          <rect
            key={`${column}-${row}`}
            x={76 + column * 44}
            y={130 + row * 38}
            width="36"
            height="28"
            rx="8"
            className={chosen ? "fill-apricot-400" : "fill-sand-100"}
          />
        );
      })}
      <path d="M173 182l6 6 10-11" className="stroke-white" strokeWidth="4" strokeLinecap="round" strokeLinejoin="round" fill="none" />
      {/* The confirmation call */}
      <circle cx="292" cy="200" r="52" className="fill-teal-700" />
      <path d="M276 182h9l4 11-6 4a28 28 0 0 0 14 14l4-6 11 4v9a6 6 0 0 1-6 6c-22-1-35-15-36-36a6 6 0 0 1 6-6z" className="fill-white" />
      <path
        d="M350 168a56 56 0 0 1 0 64M366 154a78 78 0 0 1 0 92"
        className="stroke-teal-700"
        strokeWidth="6"
        strokeLinecap="round"
        fill="none"
      />
      {/* Confirmed */}
      <circle cx="318" cy="108" r="24" className="fill-emerald-600" />
      <path d="M307 108l8 8 14-15" className="stroke-white" strokeWidth="5" strokeLinecap="round" strokeLinejoin="round" fill="none" />
    </svg>
  );
}
