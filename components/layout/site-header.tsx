import Link from "next/link";
import { ButtonLink } from "@/components/ui/button-link";
import { Icon } from "@/components/ui/icon";
import { DisclosureMenu } from "./disclosure-menu";
import { Logo } from "./logo";
import { NavLink } from "./nav-link";
import { UserMenu, type HeaderUser } from "./user-menu";

/** `notices`: the signed-in person's unread notices, the count on the bell. */
export function SiteHeader({ user, notices = 0 }: { user: HeaderUser | null; notices?: number }) {
  const links: { href: string; label: string; exact?: boolean; exclude?: string }[] = [
    { href: "/docs", label: "Docs", exclude: "/docs/api-reference" },
    { href: "/docs/api-reference", label: "API reference", exact: true },
    ...(user ? [{ href: "/apps", label: "My apps" }] : []),
    ...(user?.role === "admin" ? [{ href: "/admin", label: "Admin" }] : []),
  ];
  return (
    <header className="fixed-palette sticky top-0 z-30 border-b border-white/10 bg-slate-950/95 backdrop-blur supports-[backdrop-filter]:bg-slate-950/85">
      <div className="mx-auto flex h-16 max-w-7xl items-center gap-4 px-4 sm:px-6 lg:px-8">
        <Logo />
        <nav aria-label="Main" className="ml-4 hidden items-center gap-1 md:flex">
          {links.map((l) => (
            <NavLink key={l.href} href={l.href} exact={l.exact} exclude={l.exclude}>
              {l.label}
            </NavLink>
          ))}
        </nav>
        <div className="ml-auto flex items-center gap-2">
          {user ? (
            <>
              <NoticesBell count={notices} />
              <UserMenu user={user} />
            </>
          ) : (
            <ButtonLink href="/signin" size="sm" variant="light">
              Sign in
            </ButtonLink>
          )}
          <div className="md:hidden">
            <DisclosureMenu
              summaryLabel="Open navigation"
              summaryClassName="flex cursor-pointer list-none items-center rounded-md p-2 text-slate-200 hover:bg-white/10"
              summary={<Icon name="menu" className="size-5" />}
            >
              <nav
                aria-label="Mobile"
                className="themed-palette absolute right-0 z-40 mt-2 w-60 rounded-xl border border-slate-200 bg-white p-2 shadow-xl"
              >
                {links.map((l) => (
                  <NavLink key={l.href} href={l.href} exact={l.exact} exclude={l.exclude} variant="mobile">
                    {l.label}
                  </NavLink>
                ))}
              </nav>
            </DisclosureMenu>
          </div>
        </div>
      </div>
    </header>
  );
}

/** A link to the Notifications page, with the unread count in its name and on a badge. */
function NoticesBell({ count }: { count: number }) {
  const shown = count > 99 ? "99+" : String(count);
  return (
    <Link
      href="/account/notifications"
      prefetch={false}
      aria-label={count ? `Notifications, ${shown} unread` : "Notifications"}
      className="relative flex items-center rounded-md p-2 text-slate-200 hover:bg-white/10"
      data-testid="notices-bell"
    >
      <Icon name="bell" className="size-5" />
      {count ? (
        <span
          aria-hidden="true"
          className="absolute -top-0.5 -right-0.5 flex h-5 min-w-5 items-center justify-center rounded-full bg-red-600 px-1 text-xs font-semibold text-white"
        >
          {shown}
        </span>
      ) : null}
    </Link>
  );
}
