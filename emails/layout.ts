import type { TFunction } from "i18next";
import { isolatedText } from "~/lib/isolate";
import type { EmailMessage } from "~/providers/email.server";

/** Escapes text for HTML e-mail bodies; every interpolated value goes through it. */
export function escapeHtml(value: string) {
  return value.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}

/** Plain text as HTML paragraphs, keeping the writer's line breaks. */
export function paragraphs(text: string) {
  return text
    .split(/\n{2,}/)
    .map((block) => `<p style="margin:0 0 16px">${escapeHtml(block).replaceAll("\n", "<br>")}</p>`)
    .join("");
}

/** The shared frame of every e-mail: readable without images, right-to-left for Arabic. */
export function emailLayout(options: { lang: string; title: string; bodyHtml: string }) {
  const dir = options.lang === "ar" ? "rtl" : "ltr";
  return `<!doctype html>
<html lang="${escapeHtml(options.lang)}" dir="${dir}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(options.title)}</title></head>
<body style="margin:0;background:#f5f5f4;font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;color:#0f172a">
<div style="max-width:560px;margin:0 auto;padding:24px">
<p style="font-size:20px;font-weight:600;color:#0f766e;margin:0 0 16px">Sakina</p>
<div style="background:#ffffff;border-radius:12px;padding:24px;line-height:1.6;font-size:16px">${options.bodyHtml}</div>
</div>
</body>
</html>`;
}

/** A call-to-action link styled as a button (inline styles: e-mail clients ignore stylesheets). */
export function button(href: string, label: string) {
  return `<p style="margin:24px 0"><a href="${escapeHtml(href)}" style="display:inline-block;background:#0f766e;color:#ffffff;padding:12px 20px;border-radius:8px;text-decoration:none;font-weight:600">${escapeHtml(label)}</a></p>`;
}

/**
 * An e-mail whose point is one link: a paragraph, the link as a button and written out (for a
 * client that shows no buttons), a paragraph after it, the signature; the same in its text part.
 */
export function linkEmail(
  t: TFunction,
  lang: string,
  input: { to: string; subject: string; intro: string; link: string; buttonLabel: string; after: string },
): EmailMessage {
  return {
    to: input.to,
    subject: input.subject,
    text: `${input.intro}\n\n${input.link}\n\n${input.after}\n\n${t("email.signature")}\n`,
    html: emailLayout({
      lang,
      title: input.subject,
      bodyHtml: `${paragraphs(input.intro)}${button(input.link, input.buttonLabel)}<p style="font-size:14px;color:#475569;word-break:break-all">${escapeHtml(input.link)}</p>${paragraphs(input.after)}${paragraphs(t("email.signature"))}`,
    }),
  };
}

const TYPED = ["customerName", "businessName", "serviceName", "notes", "businessAddress", "customerEmail"] as const;

/**
 * An e-mail's input with what people typed (names, a service, notes, an address) in Unicode
 * isolates where the e-mail's language reads the other way: "Notes: First visit." keeps its
 * period at the end of the Latin text in an Arabic e-mail. Calendar files take the plain input.
 */
export function shownIn<T extends Partial<Record<(typeof TYPED)[number], string | null>>>(input: T, lang: string): T {
  const shown = { ...input };
  for (const field of TYPED) {
    const value = shown[field];
    if (typeof value === "string") (shown as Record<string, unknown>)[field] = isolatedText(value, lang);
  }
  return shown;
}
