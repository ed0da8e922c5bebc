import { Alert } from "@/components/ui/alert";

/**
 * Issue 26: over every hosted page of a sandbox client (`sbx_…`: login, consent, device), so
 * nobody mistakes the app's test environment for the real thing, nor types a real password there.
 */
export function SandboxBanner() {
  return (
    <div className="mb-4 w-full" data-sandbox-banner="">
      <Alert tone="warning" title="Sandbox">
        This is the app&apos;s test environment. Only its sandbox test users can sign in here, and nothing done here reaches real
        people.
      </Alert>
    </div>
  );
}
