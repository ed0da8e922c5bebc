import Link from "next/link";
import { Icon } from "@/components/ui/icon";
import { InteractionCard } from "./interaction-card";

/** Shown when the interaction is unknown, finished or expired (or its cookie is missing). */
export function ExpiredCard({ title = "This sign-in request has expired", children }: { title?: string; children?: React.ReactNode }) {
  return (
    <InteractionCard labelledBy="expired-title">
      <div className="flex size-12 items-center justify-center rounded-xl bg-amber-100 text-amber-700">
        <Icon name="clock" className="size-6" />
      </div>
      <h1 id="expired-title" className="mt-6 text-2xl font-semibold tracking-tight">
        {title}
      </h1>
      <p className="mt-2 text-sm text-slate-600">
        {children ??
          "Sign-in requests are valid for a limited time and can be used once. Go back to the app you came from and start signing in again."}
      </p>
      <Link href="/" className="mt-6 inline-flex text-sm font-medium text-brand-700 hover:underline">
        Go to the platform
      </Link>
    </InteractionCard>
  );
}
