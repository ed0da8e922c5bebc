import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { TimeAgo } from "@/components/ui/time-ago";
import type { SignInSessionView } from "@/lib/schemas/sign-in-sessions";
import { SignOutElsewhereButton } from "./sign-out-elsewhere-button";
import { SignOutSessionButton } from "./sign-out-session-button";

/** What a session's row is called: "Chrome 131 on macOS", or what is known of it. */
function sessionLabel(session: Pick<SignInSessionView, "browser" | "os">): string {
  if (session.browser && session.os) return `${session.browser} on ${session.os}`;
  return session.browser || session.os || "Unknown browser";
}

/**
 * Account security's "Where you're signed in": the person's sign-in sessions at the
 * sign-in service, this browser's marked, each other one with "Sign out", and "Sign out everywhere
 * else". `now` is the page's clock (TimeAgo).
 */
export function SignInSessionList({ sessions, now }: { sessions: SignInSessionView[]; now: Date }) {
  const others = sessions.filter((session) => !session.current).length;
  return (
    <Card
      id="sessions"
      title="Where you're signed in"
      description="Browsers signed in to your platform account. Signing a session out ends it at the sign-in service and in the portal at once."
      actions={others > 0 ? <SignOutElsewhereButton others={others} /> : null}
    >
      <ul className="divide-y divide-slate-100" aria-label="Sign-in sessions">
        {sessions.map((session) => {
          const label = sessionLabel(session);
          return (
            <li key={session.id} className="flex flex-col gap-3 py-4 first:pt-0 last:pb-0 sm:flex-row sm:items-start sm:justify-between">
              <div className="min-w-0 flex-1">
                <p className="flex flex-wrap items-center gap-2 font-medium break-words text-slate-900">
                  {label}
                  {session.current ? <Badge tone="green">This device</Badge> : null}
                </p>
                <p className="mt-1 text-sm text-slate-600">
                  {session.addressPrefix ? <>Network {session.addressPrefix} · </> : null}
                  Signed in <TimeAgo date={session.createdAt} now={now} /> · Last active <TimeAgo date={session.lastActiveAt} now={now} />
                </p>
                {session.userAgent ? <p className="mt-1 font-mono text-xs break-all text-slate-600">{session.userAgent}</p> : null}
              </div>
              {session.current ? null : (
                <div className="shrink-0">
                  <SignOutSessionButton sessionId={session.id} label={label} />
                </div>
              )}
            </li>
          );
        })}
      </ul>
      <div className="mt-4 space-y-1 border-t border-slate-100 pt-4 text-sm text-slate-600">
        <p>
          Signing out does not take back what apps were allowed to do with your account: they keep their access until you revoke it on{" "}
          <Link href="/account/apps" className="font-medium text-brand-700 underline underline-offset-2 hover:text-brand-800">
            Connected apps
          </Link>
          .
        </p>
        <p>
          The place is only the network an address belongs to (the last part of an IPv4 address, or all but the first 48 bits of an IPv6
          one, is never kept); no map lookup is made.
        </p>
      </div>
    </Card>
  );
}
