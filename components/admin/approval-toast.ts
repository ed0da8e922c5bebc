"use client";

import { toast } from "sonner";
import { undoApprovalsAction } from "@/lib/actions/admin";

/** How long the undo stays on screen (the server accepts an undo for 10 minutes). */
const UNDO_TOAST_MS = 10_000;

/**
 * The toast after an approval (one app or many) with an Undo button. Undo asks the server to put
 * each app back as it was (lib/services/apps.ts undoApproval) and then re-renders the page.
 */
export function toastApproved(message: string, clientIds: string[], refresh: () => void): void {
  toast.success(message, {
    duration: UNDO_TOAST_MS,
    action: {
      label: "Undo",
      onClick: async () => {
        const result = await undoApprovalsAction(clientIds);
        if (!result.ok) {
          toast.error(result.error.message);
          return;
        }
        const { undone, failed } = result.data;
        if (undone.length) {
          toast.success(
            undone.length === 1 ? "Approval undone: the app is back in the queue" : `${undone.length} approvals undone`,
            { description: "Any secret or token it got since the approval no longer works." },
          );
        }
        for (const failure of failed) toast.error(failure.message);
        refresh();
      },
    },
  });
}
