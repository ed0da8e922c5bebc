import Link from "next/link";
import { buttonClasses } from "@/components/ui/button";
import { Icon } from "@/components/ui/icon";

/** Rendered with HTTP 403 by forbidden() (admin pages for non-admins). */
export default function Forbidden() {
  return (
    <main id="main" className="mx-auto flex min-h-[60vh] max-w-lg flex-col items-center justify-center px-4 py-16 text-center">
      <span className="flex size-14 items-center justify-center rounded-full bg-red-50 text-red-600">
        <Icon name="lock" className="size-7" />
      </span>
      <p className="mt-6 text-sm font-semibold text-red-700">403</p>
      <h1 className="mt-1 text-2xl font-semibold tracking-tight">You don&apos;t have access to this page</h1>
      <p className="mt-2 text-slate-600">This area is for platform admins. If you think you should have access, ask an admin.</p>
      <Link href="/apps" className={`${buttonClasses("secondary")} mt-8`}>
        <Icon name="arrowLeft" /> Back to my apps
      </Link>
    </main>
  );
}
