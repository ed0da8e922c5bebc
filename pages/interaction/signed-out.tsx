import Link from "next/link";
import type { PageConfig } from "next";
import { HostedPage } from "@/components/interaction/hosted-page";
import { InteractionCard } from "@/components/interaction/interaction-card";
import { Icon } from "@/components/ui/icon";

/** Static HTML, no JavaScript (pages/_app.tsx). */
export const config: PageConfig = { unstable_runtimeJS: false };

/** Where end-session lands when the app gave no post_logout_redirect_uri. */
export default function SignedOutPage() {
  return (
    <HostedPage title="Signed out">
      <InteractionCard labelledBy="signed-out-title">
        <div className="flex size-12 items-center justify-center rounded-xl bg-emerald-100 text-emerald-700">
          <Icon name="check" className="size-6" />
        </div>
        <h1 id="signed-out-title" className="mt-6 text-2xl font-semibold tracking-tight">
          You are signed out
        </h1>
        <p className="mt-2 text-sm text-slate-600">You can close this window, or go back to the app you came from.</p>
        <Link href="/" className="mt-6 inline-flex text-sm font-medium text-brand-700 hover:underline">
          Go to the platform
        </Link>
      </InteractionCard>
    </HostedPage>
  );
}
