"use client";

import { useEffect, useState } from "react";
import { SecretReveal } from "./secret-reveal";

/**
 * An API client's sandbox secret, shown once with the app's credentials right after
 * registration. The registration form (app-form.tsx) hands it over in this browser tab's memory
 * only: never in the URL, storage or a cookie, and the server keeps just its hash. The app page's
 * banner takes it once (a reload or another visit finds nothing; the Sandbox tab can roll it).
 */
interface Handoff {
  clientId: string;
  sandboxClientId: string;
  clientSecret: string;
}

let handoff: Handoff | null = null;

/** Called by the registration form with what createAppAction returned, before it navigates. */
export function handOffSandboxSecret(next: Handoff): void {
  handoff = next;
}

function peek(clientId: string): Handoff | null {
  return handoff?.clientId === clientId ? handoff : null;
}

export function NewSandboxSecretBanner({ clientId }: { clientId: string }) {
  // The server's render never has it; the client navigation from the form does (no hydration of
  // this state on a full load, where the memory is empty anyway).
  const [shown, setShown] = useState<Handoff | null>(() => (typeof window === "undefined" ? null : peek(clientId)));
  useEffect(() => {
    // Taken: the next render of this page (a reload, coming back later) shows nothing.
    if (handoff?.clientId === clientId) handoff = null;
  }, [clientId]);
  if (!shown) return null;
  return (
    <SecretReveal
      secret={shown.clientSecret}
      headingLevel={2}
      label="Sandbox client secret"
      inputTestId="sandbox-client-secret"
      testId="sandbox-secret-reveal"
      title="Registered: here is your sandbox secret — copy it now, it will not be shown again"
      note="We store only a hash of it. Keep it in a secret manager or an environment variable, never in source code or logs. If you lose it, roll it on the Sandbox tab."
      next={
        <>
          Use it with the sandbox client ID <code className="font-mono break-all">{shown.sandboxClientId}</code> now, before
          review: sandbox tokens read and write only this app&apos;s synthetic world (quickstart below). The live secret comes
          after approval.
        </>
      }
      onDone={() => setShown(null)}
    />
  );
}
