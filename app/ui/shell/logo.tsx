/** Sakina's mark: a calm face in a circle (a listener), in the brand teal. */
export function LogoMark({ className = "size-8" }: { className?: string }) {
  return (
    <svg aria-hidden="true" viewBox="0 0 32 32" className={className}>
      <circle cx="16" cy="16" r="15" className="fill-teal-700" />
      <path d="M9 17c2.5 3.5 11.5 3.5 14 0" className="stroke-white" strokeWidth="2.5" strokeLinecap="round" fill="none" />
      <path d="M10 12.5q1.5-1.5 3 0M19 12.5q1.5-1.5 3 0" className="stroke-white" strokeWidth="2" strokeLinecap="round" fill="none" />
      <circle cx="25" cy="7.5" r="3" className="fill-apricot-400" />
    </svg>
  );
}
