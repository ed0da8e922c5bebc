"use client";

import { signIn } from "next-auth/react";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Icon } from "@/components/ui/icon";

/** Starts next-auth's authorization-code + PKCE flow against the platform's sign-in service. */
export function SignInButton({ callbackUrl, label = "Continue with your platform account" }: { callbackUrl: string; label?: string }) {
  const [busy, setBusy] = useState(false);
  return (
    <Button
      size="lg"
      wrap
      className="w-full"
      loading={busy}
      onClick={() => {
        setBusy(true);
        void signIn("platform", { callbackUrl }).catch(() => setBusy(false));
      }}
    >
      {busy ? "Redirecting…" : label}
      {busy ? null : <Icon name="arrowRight" />}
    </Button>
  );
}
