import type { ReactNode } from "react";
import { AdminShell } from "~/features/admin/index";
import type { AccountFrame } from "~/features/business/owner.server";
import { OwnerShell, type OwnerSection } from "~/ui/shell/owner-shell";

/**
 * A page any signed-in person may open, in that person's own frame (see `accountFrame` and
 * `signedInShell`): the owner's app, the admin's frame, or, for no frame, the content alone (the
 * site's header and footer are drawn by the root then).
 */
export function SignedInFrame({
  frame,
  current,
  children,
}: {
  frame: AccountFrame;
  /** The owner's section this page sits in (marked, not as "this page"). */
  current?: OwnerSection;
  children: ReactNode;
}) {
  if (frame?.kind === "owner") {
    return (
      <OwnerShell shell={frame.shell} current={current} here={false}>
        {children}
      </OwnerShell>
    );
  }
  if (frame?.kind === "admin") {
    return (
      <AdminShell email={frame.email} nav={frame.nav}>
        {children}
      </AdminShell>
    );
  }
  return <>{children}</>;
}
