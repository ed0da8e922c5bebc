import type { ReactNode } from "react";
import { Icon } from "@/components/ui/icon";
import { logoPath, type AppIdentityData } from "@/lib/schemas/apps";


const SIZES = { sm: "size-8 rounded-md text-sm", md: "size-12 rounded-lg text-xl", lg: "size-16 rounded-xl text-2xl" } as const;
const PIXELS = { sm: 32, md: 48, lg: 64 } as const;

/** A stable hue per app, so a placeholder tells apps apart without looking like a real logo. */
function hueOf(text: string): number {
  let hue = 0;
  for (const ch of text) hue = (hue * 31 + ch.charCodeAt(0)) % 360;
  return hue;
}

/**
 * An app's logo, always from the platform's origin (/media/logos/…, never a developer's server), or
 * its initial on a tinted square. Decorative: the app's name is always written next to it.
 */
export function AppLogo({
  clientId,
  name,
  logo,
  size = "md",
  src,
}: {
  clientId: string;
  name: string;
  logo: string | null;
  size?: keyof typeof SIZES;
  /** Another logo file of the same app (a pending change's); defaults to `logo`. */
  src?: string;
}) {
  const file = src ?? logo;
  if (file) {
    return (
      // A plain img: the hosted pages ship no JavaScript (next/image would), and the file is ours,
      // already checked and sized (lib/services/app-logos.ts).
      // eslint-disable-next-line @next/next/no-img-element
      <img
        src={logoPath(clientId, file)}
        alt=""
        width={PIXELS[size]}
        height={PIXELS[size]}
        className={`${SIZES[size]} shrink-0 bg-white object-contain ring-1 ring-slate-200`}
        data-testid="app-logo"
      />
    );
  }
  const initial = name.trim().charAt(0).toUpperCase() || "?";
  return (
    <span
      aria-hidden="true"
      data-testid="app-logo-placeholder"
      className={`${SIZES[size]} fixed-palette flex shrink-0 items-center justify-center font-semibold text-white`}
      // 32% lightness: white text stays above 4.5:1 whatever the hue, in both themes (fixed-palette).
      style={{ backgroundColor: `hsl(${hueOf(name)} 55% 32%)` }}
    >
      {initial}
    </span>
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * The words of the identity card. English in the portal; the hosted consent page passes its
 * language's (lib/i18n), so the portal's client bundles stay free of the catalogs.
 */
export interface AppIdentityWords {
  homepage: string;
  privacyPolicy: string;
  terms: string;
  links: string;
  newTab: string;
  about: (app: string) => string;
  by: (name: ReactNode, handle: ReactNode) => ReactNode;
  ownerUnknown: string;
}

const ENGLISH: AppIdentityWords = {
  homepage: "Homepage",
  privacyPolicy: "Privacy policy",
  terms: "Terms of service",
  links: "Links of the app",
  newTab: "(opens in a new tab)",
  about: (app) => `About ${app}`,
  by: (name, handle) => (
    <>
      by {name} {handle}
    </>
  ),
  ownerUnknown: "Owner unknown",
};

/** The app's links (https only, checked at the edge), each with the host it leads to. */
export function AppLinks({
  app,
  className = "",
  words = ENGLISH,
}: {
  app: Pick<AppIdentityData, "homepageUrl" | "privacyPolicyUrl" | "termsUrl">;
  className?: string;
  words?: AppIdentityWords;
}) {
  const links = [
    { label: words.homepage, href: app.homepageUrl },
    { label: words.privacyPolicy, href: app.privacyPolicyUrl },
    { label: words.terms, href: app.termsUrl },
  ].filter((l): l is { label: string; href: string } => Boolean(l.href));
  if (!links.length) return null;
  return (
    <ul className={`flex flex-wrap gap-x-4 gap-y-1 text-sm ${className}`} aria-label={words.links} data-testid="app-links">
      {links.map((link) => (
        <li key={link.label} className="min-w-0">
          <a
            href={link.href}
            target="_blank"
            rel="noopener noreferrer nofollow"
            className="inline-flex max-w-full items-center gap-1 font-medium text-brand-700 underline underline-offset-2 hover:text-brand-800"
          >
            <Icon name="external" className="size-3.5 shrink-0" />
            <span className="min-w-0 break-words">
              {link.label} <span className="font-normal text-slate-600">({hostOf(link.href)})</span>
            </span>
            <span className="sr-only"> {words.newTab}</span>
          </a>
        </li>
      ))}
    </ul>
  );
}

/**
 * Who an app is, the same way everywhere people decide about it: the consent page, the
 * app's page in the portal and the admin review. Logo, name, owner, description, links. Renders
 * without JavaScript (the hosted pages ship none).
 */
export function AppIdentity({
  app,
  headingLevel = "h2",
  size = "lg",
  showLogo = true,
  className = "",
  words = ENGLISH,
}: {
  app: AppIdentityData;
  headingLevel?: "h2" | "h3" | "p";
  size?: "md" | "lg";
  /** False where the page shows the logo large already (the consent page's header). */
  showLogo?: boolean;
  className?: string;
  words?: AppIdentityWords;
}) {
  const Name = headingLevel;
  return (
    <div role="group" className={`flex gap-4 ${className}`} aria-label={words.about(app.name)} data-testid="app-identity">
      {showLogo ? <AppLogo clientId={app.clientId} name={app.name} logo={app.logo} size={size} /> : null}
      <div className="min-w-0 flex-1">
        <Name className="text-base font-semibold wrap-anywhere text-slate-900">{app.name}</Name>
        <p className="text-sm wrap-anywhere text-slate-600" data-testid="app-identity-owner">
          {app.owner ? words.by(app.owner.displayName, <span className="text-slate-600">(@{app.owner.handle})</span>) : words.ownerUnknown}
        </p>
        {app.description ? (
          <p className="mt-2 text-sm wrap-anywhere whitespace-pre-line text-slate-700" data-testid="app-identity-description">
            {app.description}
          </p>
        ) : null}
        <AppLinks app={app} className="mt-2" words={words} />
      </div>
    </div>
  );
}
