import type { Metadata } from "next";
import { DocsPage } from "@/components/docs/docs-page";
import { TableScroll } from "@/components/ui/table-scroll";
import { API_ROUTES } from "@/lib/api/routes";
import { OIDC_SCOPES, SVC_SCOPES, SVC_SCOPE_NAMES, USER_ONLY_SCOPES } from "@/lib/scopes";

export const metadata: Metadata = { title: "Scopes" };

/** Each scope's endpoints, from the API's route table (the router and the OpenAPI document read the same). */
const ENDPOINTS: Record<string, string[]> = {};
for (const { config } of API_ROUTES) {
  if (config.scope) (ENDPOINTS[config.scope] ??= []).push(`${config.method} ${config.path}`);
}

export default function ScopesPage() {
  return (
    <DocsPage
      path="/docs/scopes"
      title="Scopes"
      lead="A scope is a permission an app asks for. Register the ones your app needs; people see them in plain words on the consent screen."
    >
      <h2 id="api-scopes">API scopes</h2>
      <TableScroll label="API scopes">
        {/* Four columns: on a phone it scrolls sideways rather than squeezing the text to a word per line. */}
        <table className="min-w-[38rem]">
          <thead>
            <tr>
              <th scope="col">Scope</th>
              <th scope="col">What it allows</th>
              <th scope="col">Endpoints</th>
              <th scope="col">Token</th>
            </tr>
          </thead>
          <tbody>
            {SVC_SCOPE_NAMES.map((scope) => (
              <tr key={scope}>
                <td>
                  <code>{scope}</code>
                </td>
                <td>{SVC_SCOPES[scope]}</td>
                <td>
                  {(ENDPOINTS[scope] ?? []).map((e) => (
                    <code key={e} className="mb-1 block w-fit">
                      {e}
                    </code>
                  ))}
                </td>
                <td>{USER_ONLY_SCOPES.includes(scope) ? "user-delegated" : "user-delegated or app-only"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <p>
        <code>GET /users/{"{username}"}</code> needs no scope and <code>GET /me</code> needs only a user-delegated token
        (an <code>openid</code> grant is enough).
      </p>

      <h2 id="oidc-scopes">Sign-in scopes</h2>
      <TableScroll label="Sign-in scopes">
        <table>
          <tbody>
            {Object.entries(OIDC_SCOPES).map(([scope, text]) => (
              <tr key={scope}>
                <td>
                  <code>{scope}</code>
                </td>
                <td>{text}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>

      <h2 id="how">How scopes are granted</h2>
      <ul>
        <li>An API key client&apos;s token carries the scopes registered for it.</li>
        <li>
          A login client requests <code>openid</code>; its registered <code>svc:</code> scopes are attached automatically
          and shown on the consent screen. Consent is remembered until the person or an admin revokes it; revoking it
          also voids the person&apos;s access and refresh tokens for the app at once.
        </li>
        <li>
          A token without the scope an endpoint needs gets <code>403 insufficient_scope</code>. Edit the app to add a
          scope; once an admin approves the change, people are asked again for the new one (the consent page says the
          app &ldquo;now asks for more&rdquo; and marks it).
        </li>
      </ul>
    </DocsPage>
  );
}
