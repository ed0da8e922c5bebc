import { Icon } from "@/components/ui/icon";
import { InteractionCard } from "./interaction-card";

/** Device sign-in, the end: signed in (the device picks its tokens up) or cancelled (it gets access_denied). */
export function DeviceResultCard({ outcome, clientName }: { outcome: "success" | "cancelled"; clientName: string | null }) {
  const success = outcome === "success";
  return (
    <InteractionCard labelledBy="device-result-title">
      <div
        className={`flex size-12 items-center justify-center rounded-xl ${success ? "bg-emerald-100 text-emerald-700" : "bg-slate-100 text-slate-700"}`}
      >
        <Icon name={success ? "check" : "x"} className="size-6" />
      </div>
      <h1 id="device-result-title" className="mt-6 text-2xl font-semibold tracking-tight">
        {success ? "You're signed in on your device" : "Device sign-in cancelled"}
      </h1>
      <p className="mt-2 text-sm text-slate-600">
        {success
          ? `${clientName ?? "The app"} can now continue on your device. You can close this page.`
          : "Nothing was shared with the device. You can close this page; to try again, start signing in on the device."}
      </p>
      {success ? (
        <p className="mt-4 text-xs text-slate-500">
          You can take the app&apos;s access back at any time under{" "}
          <a href="/account/apps" className="font-medium text-brand-700 underline underline-offset-2 hover:text-brand-800">
            Connected apps
          </a>
          .
        </p>
      ) : null}
    </InteractionCard>
  );
}
