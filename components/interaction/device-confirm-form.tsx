import { buttonClasses } from "@/components/ui/button";
import { Icon } from "@/components/ui/icon";
import { InteractionCard } from "./interaction-card";

/**
 * Device sign-in, step 2 (RFC 8628 §5.4, remote phishing): the app and the code, to compare with
 * the device before anything else happens. "Continue" goes on to the usual login and consent pages;
 * "Cancel" refuses the device (it then gets access_denied). Posts to oidc-provider with its CSRF value.
 */
export function DeviceConfirmForm({
  action,
  xsrf,
  userCode,
  clientName,
  ownerHandle,
}: {
  action: string;
  xsrf: string;
  userCode: string;
  clientName: string;
  ownerHandle: string | null;
}) {
  return (
    <InteractionCard labelledBy="device-confirm-title">
      <div className="flex size-12 items-center justify-center rounded-xl bg-brand-600 text-white">
        <Icon name="shield" className="size-6" />
      </div>
      <h1 id="device-confirm-title" className="mt-6 text-2xl font-semibold tracking-tight">
        Is this the code on your device?
      </h1>
      <p className="mt-2 text-sm text-slate-600">
        <strong className="font-semibold text-slate-900">{clientName}</strong>
        {ownerHandle ? (
          <>
            , an app built by <strong className="font-semibold text-slate-900">@{ownerHandle}</strong>,
          </>
        ) : null}{" "}
        asks to sign in on a device showing this code:
      </p>
      <p
        className="mt-4 rounded-xl bg-slate-50 px-4 py-3 text-center font-mono text-2xl font-semibold tracking-[0.2em] text-slate-900 ring-1 ring-inset ring-slate-200"
        aria-label={`Code ${userCode.split("").join(" ")}`}
      >
        {userCode}
      </p>
      <p className="mt-4 text-xs text-slate-600">
        Only continue if you started this sign-in yourself and the code matches. If someone sent you this code or link,
        cancel: continuing would give them access to your account.
      </p>
      <form method="post" action={action} className="mt-6 flex flex-col-reverse gap-3 sm:flex-row">
        <input type="hidden" name="xsrf" value={xsrf} />
        <input type="hidden" name="user_code" value={userCode} />
        <input type="hidden" name="confirm" value="yes" />
        <button type="submit" name="abort" value="yes" className={buttonClasses("secondary", "lg", "w-full sm:w-auto sm:flex-1")}>
          Cancel
        </button>
        <button type="submit" autoFocus className={buttonClasses("primary", "lg", "w-full sm:w-auto sm:flex-1")}>
          Continue
        </button>
      </form>
    </InteractionCard>
  );
}
