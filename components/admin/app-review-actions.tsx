"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { toast } from "sonner";
import {
  approveAppAction,
  reinstateAppAction,
  rejectAppAction,
  suspendAppAction,
} from "@/lib/actions/admin";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Icon } from "@/components/ui/icon";
import type { ActionResult } from "@/lib/actions/result";
import { rejectAppSchema, type AppView } from "@/lib/schemas/apps";
import { toastApproved } from "./approval-toast";
import { ReasonPicker } from "./reason-picker";

/** What reviewers say most; the developer reads it on the app page, so each says what to change. */
export const REJECT_PRESETS = [
  "The description does not say what the app does. Describe it and what it needs each scope for.",
  "It asks for more scopes than it needs. Keep only the scopes the app uses.",
  "A redirect URI points to a host you do not seem to control. Use your own domain.",
  "It looks like a test or duplicate registration. Delete it, or describe the real app.",
] as const;

const SUSPEND_PRESETS = [
  "Spam or abuse reported by several people.",
  "Its tokens were used to scrape profiles in bulk.",
  "Its secret was published; roll the secret before asking for reinstatement.",
] as const;

type ReasonKind = "reject" | "suspend";

/**
 * Approve / reject (with a reason) / suspend (with a reason) / reinstate, as the status allows.
 * What suspension does to tokens is lib/services/app-review.ts transition(); the texts say exactly
 * that. Approval and rejection send the revision this page rendered: if the app changed
 * since, the service refuses, the toast says so, and the page shows the app again as it is now.
 */
export function AppReviewActions({
  clientId,
  name,
  status,
  revision,
  size = "sm",
}: {
  clientId: string;
  name: string;
  status: AppView["status"];
  revision: number;
  size?: "sm" | "md";
}) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [asking, setAsking] = useState<ReasonKind | null>(null);
  const [reason, setReason] = useState("");
  const [reasonError, setReasonError] = useState<string>();

  function run(action: () => Promise<ActionResult<{ status: string }>>, success: string, offerUndo = false) {
    startTransition(async () => {
      const result = await action();
      if (!result.ok) {
        if (result.error.fields?.reason) setReasonError(result.error.fields.reason);
        toast.error(result.error.message);
        if (result.error.code === "conflict") {
          setAsking(null);
          router.refresh();
        }
        return;
      }
      setAsking(null);
      setReason("");
      if (offerUndo) {
        toastApproved(success, [clientId], () => router.refresh());
      } else {
        toast.success(success);
      }
      router.refresh();
    });
  }

  function submitReason() {
    const parsed = rejectAppSchema.safeParse({ reason });
    if (!parsed.success) {
      setReasonError(parsed.error.issues[0]?.message);
      return;
    }
    setReasonError(undefined);
    if (asking === "reject") run(() => rejectAppAction(clientId, { reason, revision }), `Rejected ${name}`);
    if (asking === "suspend") run(() => suspendAppAction(clientId, { reason }), `Suspended ${name}`);
  }

  return (
    <div className="flex flex-wrap gap-2" data-revision={revision}>
      {status === "pending" || status === "rejected" ? (
        <Button size={size} onClick={() => run(() => approveAppAction(clientId, revision), `Approved ${name}`, true)} loading={pending && !asking} aria-label={`Approve ${name}`}>
          <Icon name="check" /> Approve
        </Button>
      ) : null}
      {status === "pending" ? (
        <Button size={size} variant="danger-outline" onClick={() => setAsking("reject")} aria-label={`Reject ${name}`}>
          Reject
        </Button>
      ) : null}
      {status === "approved" ? (
        <Button size={size} variant="danger-outline" onClick={() => setAsking("suspend")} aria-label={`Suspend ${name}`}>
          <Icon name="ban" /> Suspend
        </Button>
      ) : null}
      {status === "suspended" ? (
        <Button
          size={size}
          variant="secondary"
          onClick={() => run(() => reinstateAppAction(clientId), `Reinstated ${name}`)}
          loading={pending && !asking}
          aria-label={`Reinstate ${name}`}
          title="It can get new tokens again; tokens voided by the suspension stay void"
        >
          <Icon name="refresh" /> Reinstate
        </Button>
      ) : null}
      <Dialog
        open={asking !== null}
        onClose={() => (pending ? undefined : setAsking(null))}
        title={asking === "reject" ? `Reject ${name}?` : `Suspend ${name}?`}
        description={
          asking === "reject"
            ? "The developer sees your reason on the app's page. Say what to change."
            : (
                <>
                  Token requests fail with <code className="font-mono">invalid_client</code>, and every access and
                  refresh token of the app is voided at once. Reinstating does not revive them: people and API clients
                  must get new tokens. The developer sees your reason.
                </>
              )
        }
        footer={
          <>
            <Button variant="secondary" onClick={() => setAsking(null)} disabled={pending}>
              Cancel
            </Button>
            <Button variant="danger" onClick={submitReason} loading={pending}>
              {asking === "reject" ? "Reject application" : "Suspend application"}
            </Button>
          </>
        }
      >
        <ReasonPicker
          presets={asking === "suspend" ? SUSPEND_PRESETS : REJECT_PRESETS}
          value={reason}
          onChange={(value) => {
            setReason(value);
            setReasonError(undefined);
          }}
          error={reasonError}
          placeholder={asking === "reject" ? "Or write what the developer should change." : "Or write what happened."}
        />
      </Dialog>
    </div>
  );
}
