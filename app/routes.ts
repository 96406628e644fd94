import { type RouteConfig, index, route } from "@react-router/dev/routes";

export default [
  index("routes/home.tsx"),
  route("old-landing", "routes/old-landing.ts"),
  route("contact", "routes/contact.tsx"),
  route("language", "routes/language.tsx"),
  route("privacy", "routes/pages/privacy.tsx"),
  route("terms", "routes/pages/terms.tsx"),
  route("cookies", "routes/pages/cookies.tsx"),
  route("how-it-works", "routes/pages/how-it-works.tsx"),
  route("languages", "routes/pages/languages.tsx"),
  route("faq", "routes/pages/faq.tsx"),
  route("safety", "routes/pages/safety.tsx"),
  route("accessibility", "routes/pages/accessibility.tsx"),
  route("healthz", "routes/healthz.ts"),
  route("dev/outbox", "routes/dev.outbox.tsx"),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
