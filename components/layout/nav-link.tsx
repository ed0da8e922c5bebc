"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { useNavSection } from "./nav-section";

/** A header or sidebar link that marks the current section with aria-current. */
export function NavLink({
  href,
  children,
  exact = false,
  exclude,
  variant = "header",
}: {
  href: string;
  children: ReactNode;
  exact?: boolean;
  /** A sub-path that has its own link (Docs vs API reference). */
  exclude?: string;
  variant?: "header" | "sidebar" | "tab" | "mobile";
}) {
  const pathname = usePathname() ?? "";
  const section = useNavSection();
  const within = exact ? pathname === href : pathname === href || pathname.startsWith(`${href}/`);
  // A page that says which section it belongs to (NavSection) overrides the URL.
  const active = section ? section === href : within && !(exclude && pathname.startsWith(exclude));
  const styles = {
    header: active ? "bg-white/10 text-white" : "text-slate-300 hover:bg-white/5 hover:text-white",
    sidebar: active
      ? "bg-brand-50 font-medium text-brand-700"
      : "text-slate-700 hover:bg-slate-100 hover:text-slate-900",
    tab: active
      ? "border-brand-600 text-brand-700"
      : "border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900",
    mobile: active ? "bg-slate-100 font-medium text-slate-900" : "text-slate-700 hover:bg-slate-50",
  }[variant];
  const shape = {
    header: "rounded-md px-3 py-2 text-sm font-medium",
    sidebar: "block rounded-md px-3 py-1.5 text-sm",
    tab: "inline-flex items-center gap-2 border-b-2 px-1 pb-3 text-sm font-medium whitespace-nowrap",
    mobile: "block rounded-md px-3 py-2 text-base",
  }[variant];
  return (
    <Link href={href} aria-current={active ? "page" : undefined} className={`${shape} ${styles} transition-colors`}>
      {children}
    </Link>
  );
}
