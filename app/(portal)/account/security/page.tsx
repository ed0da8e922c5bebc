import type { Metadata } from "next";
import { PasskeyPanel } from "@/components/account/passkey-panel";
import { RecoveryCodesCard } from "@/components/account/recovery-codes";
import { SecondFactorPanel } from "@/components/account/second-factor-panel";
import { SignInSessionList } from "@/components/account/sign-in-session-list";
import { PageHeader } from "@/components/ui/page-header";
import { getCurrentSessionUid, requireUser } from "@/lib/portal/session";
import { listPasskeys } from "@/lib/services/passkeys";
import { getSecondFactorStatus, RECOVERY_CODE_COUNT } from "@/lib/services/second-factors";
import { listSignInSessions } from "@/lib/services/sign-in-sessions";

export const metadata: Metadata = { title: "Account security" };

/** The signed-in person's second factors, from the avatar menu. */
export default async function AccountSecurityPage({ searchParams }: { searchParams: Promise<{ required?: string }> }) {
  const user = await requireUser();
  const [status, passkeys] = await Promise.all([getSecondFactorStatus(user.id), listPasskeys(user.id)]);
  const { required } = await searchParams;
  const sessions = await listSignInSessions(user.id, await getCurrentSessionUid());
  return (
    <div className="space-y-8">
      <PageHeader
        title="Account security"
        description="A second factor keeps your account safe even if someone learns your password: after your password, the sign-in asks for a code from an authenticator app on your phone or for one of your passkeys. A passkey can also sign you in on its own, without a password."
      />
      <SecondFactorPanel
        handle={user.handle}
        totp={status.totp}
        enrolledAt={status.totpEnrolledAt?.toISOString() ?? null}
        canUseCode={status.recoveryCodesLeft > 0}
        required={required === "1" && !status.totp && !status.passkeys}
      />
      <PasskeyPanel
        canUseCode={status.totp || status.recoveryCodesLeft > 0}
        passkeys={passkeys.map((p) => ({ ...p, createdAt: p.createdAt.toISOString(), lastUsedAt: p.lastUsedAt?.toISOString() ?? null }))}
      />
      {status.totp || status.passkeys ? <RecoveryCodesCard left={status.recoveryCodesLeft} total={RECOVERY_CODE_COUNT} /> : null}
      <SignInSessionList sessions={sessions} now={new Date()} />
    </div>
  );
}
