"use client";

import { useState } from "react";
import type { RevealedSecret } from "@/lib/schemas/apps";
import { SecretReveal } from "./secret-reveal";

/**
 * The first client secret of a newly approved API client, at the top of its page (as
 * GitHub shows a new OAuth app secret): visible without scrolling, shown once. It stays through the
 * page's own refreshes (adding or rolling a secret) until dismissed, and disappears by itself once
 * that secret is no longer active (rolled or retired), so it never shows a dead secret.
 */
export function NewSecretBanner({
  secret,
  activeSecretIds,
}: {
  secret: Pick<RevealedSecret, "secretId" | "clientSecret">;
  activeSecretIds: string[];
}) {
  const [shown, setShown] = useState<typeof secret | null>(secret);
  if (!shown || !activeSecretIds.includes(shown.secretId)) return null;
  return (
    <SecretReveal
      secret={shown.clientSecret}
      secretId={shown.secretId}
      headingLevel={2}
      title="Approved: here is your client secret — copy it now, it will not be shown again"
      next="Use it with the client ID below to get app-only tokens (quickstart at the bottom of this page)."
      onDone={() => setShown(null)}
    />
  );
}
