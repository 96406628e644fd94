import { data, redirect, type RouterContextProvider } from "react-router";
import type { TFunction } from "i18next";
import { findBusinessById, type Business } from "#models/businesses";
import type { Account } from "#models/accounts";
import { getAccountAndBusiness } from "~/features/auth/index.server";
import { servicesContext } from "~/platform/context";
import { getT, getLocale } from "~/platform/i18n.server";
import type { AppServices } from "~/platform/services.server";
import type { OwnerShellData } from "~/ui/shell/owner-shell";

export interface Owner {
  services: AppServices;
  t: TFunction;
  locale: string;
  account: Account;
  business: Business;
  shell: OwnerShellData;
}

/** What an owner's page shows to anyone who is not a signed-in owner: the page to sign in. */
export type NotAnOwner = { kind: "invalid"; title: string };

/**
 * The signed-in owner and their business, for a page of the owner's app. An owner still on the
 * e-mailed temporary password is sent to choose one first; anyone else gets the "sign in" page
 * (401 without a session, 404 for an account without a business).
 */
export async function ownerForPage(
  context: Readonly<RouterContextProvider>,
  request: Request,
  url: URL,
): Promise<{ owner: Owner } | { refused: ReturnType<typeof data<NotAnOwner>> }> {
  const services = context.get(servicesContext);
  const t = getT(context);
  const signedIn = await getAccountAndBusiness(context, request);
  const account = signedIn?.account;
  if (account?.mustChangePassword) throw redirect(`/change-password?redirectTo=${encodeURIComponent(url.pathname)}`);
  const business = account?.businessId && !url.searchParams.has("userId") ? signedIn!.business : null;
  if (!account || !business) {
    return {
      refused: data({ kind: "invalid" as const, title: `${t("dashboard.invalidTitle")} · Sakina` }, { status: account ? 404 : 401 }),
    };
  }
  return { owner: ownerOf(services, t, getLocale(context), account, business) };
}

/** The signed-in owner for a form post; anyone else is refused with 403. */
export async function ownerForAction(context: Readonly<RouterContextProvider>, request: Request): Promise<Owner> {
  const services = context.get(servicesContext);
  const t = getT(context);
  const signedIn = await getAccountAndBusiness(context, request);
  const account = signedIn?.account;
  if (!account?.businessId || account.mustChangePassword) throw data(null, { status: 403 });
  const business = signedIn!.business;
  if (!business) throw data(null, { status: 403 });
  return ownerOf(services, t, getLocale(context), account, business);
}

function ownerOf(services: AppServices, t: TFunction, locale: string, account: Account, business: Business): Owner {
  return {
    services,
    t,
    locale,
    account,
    business,
    shell: { businessName: business.name, bookingUrl: `${services.publicOrigin()}/book/${business.bookingLink}` },
  };
}

/** A page title of the owner's app: the page, then the business. */
export function ownerTitle(owner: Owner, page: string) {
  return `${page} · ${owner.business.name}`;
}

/**
 * The frame a signed-in person's page is drawn in, for pages any account may open (/telephony,
 * /providers, change-password, the second factor): the owner's app for an owner with a business,
 * the admin's frame for an admin (without its sections before the second factor is passed), and
 * null (the public site) for anyone else.
 */
export type AccountFrame = { kind: "owner"; shell: OwnerShellData } | { kind: "admin"; email: string; nav: boolean } | null;

export async function accountFrame(
  context: Readonly<RouterContextProvider>,
  account: Account | null | undefined,
  options: { secondFactorPassed?: boolean } = {},
): Promise<AccountFrame> {
  if (!account) return null;
  const services = context.get(servicesContext);
  if (account.role === "admin") return { kind: "admin", email: account.email, nav: options.secondFactorPassed ?? true };
  const business = account.businessId ? await findBusinessById(services.db, account.businessId) : null;
  if (!business) return null;
  return { kind: "owner", shell: ownerOf(services, getT(context), getLocale(context), account, business).shell };
}
