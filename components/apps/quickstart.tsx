import { CodeBlock } from "@/components/ui/code-block";
import { quickstartSnippets, type QuickstartApp } from "@/lib/quickstarts";

/**
 * Copy-paste snippets for the app's type in three languages, filled in with its own client ID and
 * URIs (lib/quickstarts.ts, whose every snippet a test runs against a real server). The language
 * switch is a native radio group (keyboard: Tab to it, arrows to switch) and CSS shows the checked
 * language's panel: no JavaScript.
 */
export function Quickstart({ app, issuer, apiUrl, idPrefix = "quickstart" }: { app: QuickstartApp; issuer: string; apiUrl: string; idPrefix?: string }) {
  const snippets = quickstartSnippets(app, { issuer, apiUrl });
  const name = `${idPrefix}-${app.type}-${app.clientId}`;
  return (
    <div className="space-y-4">
      {app.type === "api" ? (
        <p className="text-sm text-slate-600">
          An API key client acts as itself: it gets an app-only token with the client credentials grant. Tokens carry
          the scopes you registered{app.scopes.length ? ` (${app.scopes.join(", ")})` : ""}.
        </p>
      ) : (
        <p className="text-sm text-slate-600">
          A login client is public: it never has a secret. People sign in on the platform&apos;s page and your app gets a
          code, which it exchanges with its PKCE verifier. Each snippet runs in a terminal: it prints the sign-in URL and
          asks for the URL the browser was sent back to.
        </p>
      )}
      <div className="space-y-3 [&:has(input[value=curl]:checked)_[data-language=curl]]:block [&:has(input[value=python]:checked)_[data-language=python]]:block [&:has(input[value=typescript]:checked)_[data-language=typescript]]:block">
        <fieldset className="inline-flex flex-wrap gap-1 rounded-lg bg-slate-100 p-1">
          <legend className="sr-only">Language</legend>
          {snippets.map((snippet, i) => (
            <label
              key={snippet.language}
              className="relative cursor-pointer rounded-md px-3 py-1.5 text-sm font-medium text-slate-600 hover:text-slate-900 has-[:checked]:bg-white has-[:checked]:text-slate-900 has-[:checked]:shadow-sm has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-brand-600"
            >
              <input type="radio" name={name} value={snippet.language} defaultChecked={i === 0} className="sr-only" />
              {snippet.label}
            </label>
          ))}
        </fieldset>
        {snippets.map((snippet) => (
          <div key={snippet.language} data-language={snippet.language} className="hidden">
            <CodeBlock title={snippet.title} language={snippet.fence} code={snippet.code} />
          </div>
        ))}
      </div>
    </div>
  );
}
