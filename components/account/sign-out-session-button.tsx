"use client";

import { useRouter } from "next/navigation";
import { useTransition } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Icon } from "@/components/ui/icon";
import { signOutSessionAction } from "@/lib/actions/sign-in-sessions";

/** "Sign out" of one of the person's other sign-in sessions. */
export function SignOutSessionButton({ sessionId, label }: { sessionId: string; label: string }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();

  function signOut() {
    startTransition(async () => {
      const result = await signOutSessionAction(sessionId);
      if (!result.ok) {
        toast.error(result.error.message);
        return;
      }
      toast.success(`Signed out: ${label}`);
      router.refresh();
    });
  }

  return (
    <Button variant="danger-outline" size="sm" onClick={signOut} loading={pending}>
      <Icon name="logout" /> Sign out<span className="sr-only"> of {label}</span>
    </Button>
  );
}
