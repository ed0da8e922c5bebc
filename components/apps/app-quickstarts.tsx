import { Icon } from "@/components/ui/icon";
import { quickstartWorlds, sandboxQuickstartApp, type QuickstartApp, type QuickstartWorld } from "@/lib/quickstarts";
import { Quickstart } from "./quickstart";

type App = QuickstartApp & {
  status: "pending" | "approved" | "rejected" | "suspended";
  pendingChange?: { scopes?: string[]; redirectUris?: string[]; postLogoutRedirectUris?: string[] } | null;
};

const LABELS: Record<QuickstartWorld, string> = { live: "Live", sandbox: "Sandbox" };

/**
 * The app page's quickstart with the credentials that work now: before approval its
 * sandbox's (and it says so), once approved a Live / Sandbox switch. Like the language switch, the
 * switch is a native radio group shown by CSS: no JavaScript.
 */
export function AppQuickstarts({ app, issuer, apiUrl }: { app: App; issuer: string; apiUrl: string }) {
  const worlds = quickstartWorlds(app.status);
  const target = (world: QuickstartWorld) => (world === "sandbox" ? sandboxQuickstartApp(app) : app);
  const note = (world: QuickstartWorld) =>
    world === "sandbox" ? (
      <p className="flex items-start gap-2 rounded-lg border border-violet-200 bg-violet-50 px-3 py-2 text-sm text-violet-950" data-testid="quickstart-sandbox-note">
        <Icon name="flask" className="mt-0.5 size-4 shrink-0 text-violet-700" />
        <span>
          <strong className="font-semibold">
            {app.status === "approved"
              ? "Sandbox credentials"
              : app.status === "rejected"
                ? "Sandbox credentials — this app was not approved"
                : "Sandbox credentials — this app is awaiting review"}
          </strong>
          <span className="block">
            {app.type === "api"
              ? "The sandbox client ID with the sandbox secret shown at registration (roll it on the Sandbox tab). Tokens read and write only this app's synthetic world."
              : "The sandbox client ID: sign in with a test user from the Sandbox tab. Tokens read and write only this app's synthetic world."}
          </span>
        </span>
      </p>
    ) : null;

  if (worlds.length === 1) {
    const world = worlds[0]!;
    return (
      <div className="space-y-4" data-world={world}>
        {note(world)}
        <Quickstart app={target(world)} issuer={issuer} apiUrl={apiUrl} />
      </div>
    );
  }
  const name = `quickstart-world-${app.clientId}`;
  return (
    <div className="space-y-4 [&:has(input[value=live]:checked)_[data-world=live]]:block [&:has(input[value=sandbox]:checked)_[data-world=sandbox]]:block">
      <fieldset className="inline-flex flex-wrap gap-1 rounded-lg bg-slate-100 p-1">
        <legend className="sr-only">Credentials</legend>
        {worlds.map((world, i) => (
          <label
            key={world}
            className="relative cursor-pointer rounded-md px-3 py-1.5 text-sm font-medium text-slate-600 hover:text-slate-900 has-[:checked]:bg-white has-[:checked]:text-slate-900 has-[:checked]:shadow-sm has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-brand-600"
          >
            <input type="radio" name={name} value={world} defaultChecked={i === 0} className="sr-only" />
            {LABELS[world]}
          </label>
        ))}
      </fieldset>
      {worlds.map((world) => (
        <div key={world} data-world={world} className="hidden space-y-4">
          {note(world)}
          <Quickstart app={target(world)} issuer={issuer} apiUrl={apiUrl} />
        </div>
      ))}
    </div>
  );
}
