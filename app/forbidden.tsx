import Link from "next/link";
import { buttonClasses } from "@/components/ui/button";
import { Icon } from "@/components/ui/icon";
import { forbiddenReason } from "@/lib/portal/forbidden";

/**
 * Rendered with HTTP 403 by forbidden(): admin pages for non-admins, or a page that named its own
 * reason (lib/portal/forbidden.ts: a viewer opening an app's edit form).
 */
export default async function Forbidden() {
  const reason = (await forbiddenReason()) ?? {
    title: "You don't have access to this page",
    message: "This area is for platform admins. If you think you should have access, ask an admin.",
    back: { href: "/apps", label: "Back to my apps" },
  };
  return (
    <main id="main" className="mx-auto flex min-h-[60vh] max-w-lg flex-col items-center justify-center px-4 py-16 text-center">
      <span className="flex size-14 items-center justify-center rounded-full bg-red-50 text-red-600">
        <Icon name="lock" className="size-7" />
      </span>
      <p className="mt-6 text-sm font-semibold text-red-700">403</p>
      <h1 className="mt-1 text-2xl font-semibold tracking-tight break-words">{reason.title}</h1>
      <p className="mt-2 break-words text-slate-600" data-testid="forbidden-reason">
        {reason.message}
      </p>
      <Link href={reason.back.href} className={`${buttonClasses("secondary")} mt-8 max-w-full`}>
        <Icon name="arrowLeft" /> <span className="min-w-0 truncate">{reason.back.label}</span>
      </Link>
    </main>
  );
}
