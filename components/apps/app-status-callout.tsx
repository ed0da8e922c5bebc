import { Alert } from "@/components/ui/alert";
import { TimeAgo } from "@/components/ui/time-ago";
import type { AppView } from "@/lib/schemas/apps";

/** What the app's status means for its owner, with the admin's reason for a rejection or suspension. */
export function AppStatusCallout({ app }: { app: AppView }) {
  const reviewed = app.reviewedAt ? (
    <>
      {" "}
      Reviewed <TimeAgo date={app.reviewedAt} />.
    </>
  ) : null;
  switch (app.status) {
    case "pending":
      return (
        <Alert tone="warning" title="Waiting for review" role="status">
          An admin reviews every new application. Until it is approved, token requests fail with{" "}
          <code className="font-mono">invalid_client</code>. The result will show up here.
        </Alert>
      );
    case "approved":
      return (
        <Alert tone="success" title="Approved" role="status">
          {app.type === "api"
            ? "This client can get tokens with the client credentials grant."
            : "People can sign in to this app with their platform account."}
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
            <span className="font-medium">Reason:</span>{" "}
            <span data-testid="status-reason">{app.statusReason ?? "No reason given."}</span>
          </p>
          <p className="mt-1">
            Token requests fail with <code className="font-mono">invalid_client</code>, and every access and refresh token
            of the app was voided at the suspension. Reinstating does not revive them: once an admin reinstates the app,
            people sign in again and API clients request new tokens.
          </p>
        </Alert>
      );
  }
}
