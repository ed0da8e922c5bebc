import Link from "next/link";
import { Icon } from "@/components/ui/icon";
import { Avatar } from "./avatar";
import { DisclosureMenu } from "./disclosure-menu";

export interface HeaderUser {
  handle: string;
  displayName: string;
  role: "user" | "admin";
}

/** The signed-in user's menu (a disclosure: works with the keyboard, and before hydration). */
export function UserMenu({ user }: { user: HeaderUser }) {
  return (
    <DisclosureMenu
      // Named by its content, not an aria-label: the visible handle is part of the name (axe's
      // label-content-name-mismatch; the initials are decoration, hidden from the name).
      summaryClassName="flex cursor-pointer list-none items-center gap-2 rounded-full p-0.5 pr-2 text-sm text-slate-200 hover:bg-white/10"
      summary={
        <>
          <Avatar handle={user.handle} name={user.displayName} size="sm" />
          <span className="sr-only">Account menu for </span>
          <span className="hidden max-w-32 truncate align-middle sm:inline-block">@{user.handle}</span>
          <span className="sr-only sm:hidden">@{user.handle}</span>
          <Icon name="chevronDown" className="size-4 text-slate-400 transition-transform group-open:rotate-180" />
        </>
      }
    >
      <div className="themed-palette absolute right-0 z-40 mt-2 w-64 overflow-hidden rounded-xl border border-slate-200 bg-white text-slate-900 shadow-xl">
        <div className="border-b border-slate-100 px-4 py-3">
          <p className="truncate text-sm font-semibold">{user.displayName}</p>
          <p className="truncate text-sm text-slate-600">
            @{user.handle}
            {user.role === "admin" ? " · Admin" : ""}
          </p>
        </div>
        <nav aria-label="Account" className="p-1.5">
          <Link href="/apps" className="flex items-center gap-2 rounded-md px-3 py-2 text-sm hover:bg-slate-100">
            <Icon name="grid" /> My apps
          </Link>
          <Link href="/account/apps" className="flex items-center gap-2 rounded-md px-3 py-2 text-sm hover:bg-slate-100">
            <Icon name="shield" /> Connected apps
          </Link>
          <Link href="/account/security" className="flex items-center gap-2 rounded-md px-3 py-2 text-sm hover:bg-slate-100">
            <Icon name="lock" /> Account security
          </Link>
          {user.role === "admin" ? (
            <Link href="/admin" className="flex items-center gap-2 rounded-md px-3 py-2 text-sm hover:bg-slate-100">
              <Icon name="shield" /> Admin
            </Link>
          ) : null}
          <Link href="/docs" className="flex items-center gap-2 rounded-md px-3 py-2 text-sm hover:bg-slate-100">
            <Icon name="book" /> Documentation
          </Link>
        </nav>
        <form action="/signout" method="post" className="border-t border-slate-100 p-1.5">
          <button
            type="submit"
            className="flex w-full items-center gap-2 rounded-md px-3 py-2 text-left text-sm text-red-700 hover:bg-red-50"
          >
            <Icon name="logout" /> Sign out
          </button>
        </form>
      </div>
    </DisclosureMenu>
  );
}
