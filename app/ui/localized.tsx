import type { ReactNode } from "react";
import { useTranslation } from "~/ui/translation";
import { textDirection } from "~/i18n";

/** Translated interface inside an English-only content page declares its own language. */
export function Localized({ children, className }: { children: ReactNode; className?: string }) {
  const { i18n } = useTranslation();
  return (
    <div lang={i18n.language} dir={textDirection(i18n.language)} className={className}>
      {children}
    </div>
  );
}
