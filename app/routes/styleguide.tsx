import { data } from "react-router";
import type { Route } from "./+types/styleguide";
import { servicesContext } from "~/platform/context";
import { Badge } from "~/ui/badge";
import { Button, buttonClass, linkClass } from "~/ui/form/button";
import { Card } from "~/ui/card";
import { Disclaimer } from "~/ui/disclaimer";
import { Icon, type IconName } from "~/ui/icons";
import { BookingCallIllustration, ListeningIllustration } from "~/ui/illustrations";
import { PageHeader, PageShell } from "~/ui/shell/page-shell";
import { ResponsiveTable } from "~/ui/responsive-table";

/**
 * The design system on one page, for the people who build Sakina. It exists only in
 * development: in production it is a 404 like any unknown address. Its texts are English on
 * purpose: nobody outside the team sees it.
 */
export function loader({ context }: Route.LoaderArgs) {
  if (context.get(servicesContext).env.NODE_ENV === "production") throw data(null, { status: 404 });
  return null;
}

export const meta: Route.MetaFunction = () => [{ title: "Style guide · Sakina" }, { name: "robots", content: "noindex" }];

const colours = [
  ["bg-sand-100", "sand-100: the page canvas"],
  ["bg-white", "white: cards and fields"],
  ["bg-teal-700", "teal-700: brand, primary buttons (5.5:1 on white)"],
  ["bg-teal-800", "teal-800: links and brand text (7.6:1)"],
  ["bg-teal-50", "teal-50: soft brand surfaces"],
  ["bg-apricot-400", "apricot-400: warmth in illustrations, never text"],
  ["bg-slate-900", "ink: headings and body text"],
  ["bg-slate-600", "ink-muted: secondary text (7:1 on sand-100)"],
] as const;
const icons: IconName[] = ["check", "phone", "globe", "clock", "calendar", "shield", "heart", "tag", "menu", "close", "forward", "back"];
const rows = [
  { id: 1, when: "Tue 14:00", customer: "Layla Haddad", status: "Confirmed" },
  { id: 2, when: "Tue 15:30", customer: "Tom Becker", status: "Waiting for confirmation" },
];

export default function Styleguide() {
  return (
    <div lang="en" dir="ltr">
      <PageShell>
        <PageHeader
          eyebrow="Development only"
          title="Sakina style guide"
          intro={
            <p>
              Tokens live in <code>app/app.css</code>, components in <code>app/ui/</code>. Sentence case for every heading and button,
              logical properties only (ms, me, ps, pe, start, end), and every colour pair at WCAG AA.
            </p>
          }
        />
        <div className="space-y-12">
          <Section title="Typeface">
            <p className="text-4xl font-semibold tracking-tight">Noto Sans, someone to listen</p>
            <p className="text-2xl font-medium" lang="ar" dir="rtl">
              نوتو سانس العربي، من يصغي إليك
            </p>
            <p className="text-ink-soft">Regular body text at 16 px. Weights 400, 500 and 600 from one variable file per script.</p>
          </Section>
          <Section title="Colour">
            <ul className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
              {colours.map(([swatch, label]) => (
                <li key={swatch} className="flex items-center gap-3">
                  <span className={`size-10 shrink-0 rounded-lg border border-sand-300 ${swatch}`} />
                  <span className="text-sm">{label}</span>
                </li>
              ))}
            </ul>
          </Section>
          <Section title="Buttons: Button and buttonClass(variant)">
            <div className="flex flex-wrap gap-3">
              <Button>Primary</Button>
              <Button variant="secondary">Secondary</Button>
              <Button variant="quiet">Quiet</Button>
              <Button variant="danger">Danger</Button>
              <Button disabled>Disabled</Button>
              <a href="#links" className={buttonClass("secondary")}>
                A link that looks like a button
              </a>
            </div>
            <p id="links">
              Inline links use{" "}
              <a href="#links" className={linkClass}>
                linkClass
              </a>
              .
            </p>
          </Section>
          <Section title="Badges: the word says it, the colour repeats it">
            <div className="flex flex-wrap gap-2">
              <Badge>Neutral</Badge>
              <Badge tone="info">Info</Badge>
              <Badge tone="success">Confirmed</Badge>
              <Badge tone="warning">Waiting</Badge>
              <Badge tone="danger">Error</Badge>
            </div>
          </Section>
          <Section title="Cards">
            <div className="grid gap-4 md:grid-cols-4">
              <Card>Plain card</Card>
              <Card tone="brand">Brand card</Card>
              <Card tone="warm">Warm card</Card>
              <Card tone="muted">Muted card</Card>
            </div>
          </Section>
          <Section title="Responsive table: a table from 768 px, cards below">
            <ResponsiveTable
              caption="Bookings"
              captionVisible
              rows={rows}
              rowKey={(row) => row.id}
              columns={[
                { header: "Customer", cell: (row) => row.customer, primary: true },
                { header: "When", cell: (row) => row.when },
                {
                  header: "Status",
                  cell: (row) => <Badge tone={row.status === "Confirmed" ? "success" : "warning"}>{row.status}</Badge>,
                },
              ]}
            />
          </Section>
          <Section title="Icons (decorative; text beside them says what they mean)">
            <ul className="flex flex-wrap gap-4 text-teal-800">
              {icons.map((name) => (
                <li key={name} className="flex flex-col items-center gap-1 text-xs text-ink-soft">
                  <Icon name={name} className="size-6 text-teal-800" />
                  {name}
                </li>
              ))}
            </ul>
          </Section>
          <Section title="Illustrations">
            <div className="grid gap-6 sm:grid-cols-2">
              <Card tone="muted">
                <ListeningIllustration />
                <p className="mt-2 text-sm">ListeningIllustration: the emotional-support pages.</p>
              </Card>
              <Card tone="muted">
                <BookingCallIllustration />
                <p className="mt-2 text-sm">BookingCallIllustration: the business pages.</p>
              </Card>
            </div>
          </Section>
          <Section title="Disclaimer: on the emotional-support pages only">
            <Disclaimer />
          </Section>
          <Section title="Page frame">
            <p className="text-ink-soft">
              <code>PageShell</code> (width prose or wide) and <code>PageHeader</code> (eyebrow, the one h1, intro, actions, illustration)
              frame every public page; <code>StaticPage</code> builds on them for the English content pages.
            </p>
          </Section>
        </div>
      </PageShell>
    </div>
  );
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section className="space-y-4">
      <h2 className="text-2xl font-semibold text-ink">{title}</h2>
      {children}
    </section>
  );
}
