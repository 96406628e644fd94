import { randomBytes } from "node:crypto";
import type { NextFunction, Request, Response } from "express";

type SecurityOptions = { stripeJsUrl: string; stripeApiUrl?: string; dev: boolean; hsts: boolean };

/** The security headers of a response whose inline scripts carry `nonce`. */
export function securityHeaderValues(options: SecurityOptions): (nonce: string) => [string, string][] {
  const stripeOrigin = new URL(options.stripeJsUrl).origin;
  // Where Stripe.js talks to and where Checkout lives: Stripe's hosts, or the configured API host.
  const stripeApi = options.stripeApiUrl ? new URL(options.stripeApiUrl).origin : "https://api.stripe.com";
  const checkout = options.stripeApiUrl ? stripeApi : "https://checkout.stripe.com";
  const fixed: [string, string][] = [
    ["X-Content-Type-Options", "nosniff"],
    ["X-Frame-Options", "DENY"],
    ["Referrer-Policy", "strict-origin-when-cross-origin"],
    ["Permissions-Policy", "camera=(), geolocation=(), microphone=(self), payment=(self)"],
    ["Cross-Origin-Opener-Policy", "same-origin"],
    ...(options.hsts ? [["Strict-Transport-Security", "max-age=31536000; includeSubDomains"] as [string, string]] : []),
  ];
  return (nonce) => {
    const csp = [
      "default-src 'self'",
      `script-src 'self' 'nonce-${nonce}' ${stripeOrigin}${options.dev ? " 'unsafe-inline'" : ""}`,
      `frame-src ${stripeOrigin} https://hooks.stripe.com`,
      `connect-src 'self' ${stripeApi} ${stripeOrigin}${options.dev ? " ws: wss:" : ""}`,
      "img-src 'self' data: blob:",
      "media-src 'self' blob: data:",
      "style-src 'self' 'unsafe-inline'",
      "font-src 'self'",
      "object-src 'none'",
      "base-uri 'self'",
      `form-action 'self' ${checkout}`,
      "frame-ancestors 'none'",
    ].join("; ");
    return [["Content-Security-Policy", csp], ...fixed];
  };
}

/**
 * Security headers for every response. Inline scripts are allowed only with the per-response
 * nonce React Router's <Scripts> carries; Stripe.js is the only third-party script.
 */
export function securityHeaders(options: SecurityOptions) {
  const headersFor = securityHeaderValues(options);
  return (_req: Request, res: Response, next: NextFunction) => {
    const nonce = randomBytes(16).toString("base64");
    res.locals.nonce = nonce;
    for (const [name, value] of headersFor(nonce)) res.setHeader(name, value);
    next();
  };
}
