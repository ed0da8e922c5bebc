import { Alert } from "@/components/ui/alert";
import { TimeAgo } from "@/components/ui/time-ago";
import type { AppView } from "@/lib/schemas/apps";

/**
 * What the app's status means, with the admin's reason for a rejection or suspension: for its owner,
 * or for an admin reviewing someone else's app (`viewer`). `secretShownAbove`: this page load just
 * revealed the first client secret in the banner above (NewSecretBanner). `now`: the page's one
 * reading of the clock (TimeAgo).
 */
export function AppStatusCallout({
  app,
  viewer = "owner",
  secretShownAbove = false,
  now,
}: {
  app: AppView;
  viewer?: "owner" | "admin";
  secretShownAbove?: boolean;
  now: Date;
}) {
  const isOwner = viewer === "owner";
  const reviewed = app.reviewedAt ? (
    <>
      {" "}
      Reviewed <TimeAgo date={app.reviewedAt} now={now} />.
    </>
  ) : null;
  switch (app.status) {
    case "pending":
      // Sent back after a rejection (the loop closes): what it answers, and that it waits.
      if (app.resubmittedAt) {
        return (
          <Alert tone="warning" title="Resubmitted, waiting for review" role="status">
            <p>
              {isOwner ? "You resubmitted it" : `@${app.owner.handle} resubmitted it`} <TimeAgo date={app.resubmittedAt} now={now} /> in
              answer to the reviewer&apos;s reason:{" "}
              <span className="break-words" data-testid="previous-reason">
                {app.previousRejectionReason ?? "No reason given."}
              </span>
            </p>
            <p className="mt-1">
              Until it is approved, token requests fail with <code className="font-mono">invalid_client</code>.{" "}
              {isOwner ? "The decision will show up here and in your notifications." : "The owner sees your decision and reason on this page."}
            </p>
          </Alert>
        );
      }
      return (
        <Alert tone="warning" title={isOwner ? "Waiting for review" : "Waiting for review by an admin"} role="status">
          {isOwner ? "An admin reviews every new application. " : `Registered by @${app.owner.handle}. `}
          Until it is approved, token requests fail with <code className="font-mono">invalid_client</code>.{" "}
          {isOwner ? "The result will show up here." : "The owner sees your decision and reason on this page."}
        </Alert>
      );
    case "approved":
      return (
        <Alert tone="success" title="Approved" role="status">
          {app.type === "api"
            ? "This client can get tokens with the client credentials grant."
            : "People can sign in to this app with their platform account."}
          {app.type === "api" && secretShownAbove ? (
            <strong className="font-semibold"> Its client secret is at the top of this page: copy it now, it is shown only once.</strong>
          ) : null}
          {app.type === "api" && !isOwner && !app.hasSecret && !app.clientKeys
            ? " Its owner has not collected the client secret yet: it is shown to them once, on their next visit."
            : null}
          {reviewed}
        </Alert>
      );
    case "rejected":
      return (
        <Alert tone="danger" title="Rejected" role="status">
          <p>
            <span className="font-medium">Reason from the reviewer:</span>{" "}
            <span data-testid="status-reason">{app.statusReason ?? "No reason given."}</span>
          </p>
          <p className="mt-1">
            Edit the application to address this, then choose <span className="font-medium">Save and resubmit</span>: it goes
            back to the review queue, and the reviewer sees this reason next to your changes.{reviewed}
          </p>
        </Alert>
      );
    case "suspended":
      return (
        <Alert tone="danger" title="Suspended" role="status">
          <p>
            <span className="font-medium">{isOwner ? "Reason:" : "Reason shown to the owner:"}</span>{" "}
            <span data-testid="status-reason">{app.statusReason ?? "No reason given."}</span>
          </p>
          <p className="mt-1">
            Token requests fail with <code className="font-mono">invalid_client</code>, and every access and refresh token
            of the app was voided at the suspension. Reinstating does not revive them: once {isOwner ? "an admin reinstates" : "you reinstate"}{" "}
            the app, people sign in again and API clients request new tokens.
          </p>
        </Alert>
      );
  }
}
