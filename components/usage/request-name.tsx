import { Badge } from "@/components/ui/badge";
import { grantTypeOf, NO_ROUTE, UNAUTHENTICATED_ROUTE_PREFIX } from "@/lib/schemas/usage";
import { RouteName } from "./route-name";

/**
 * What one logged request was, in words: an API route template, the path of a request
 * no route matched, or a token request by its grant type, marked when its caller proved nothing
 * (an unauthenticated caller: a wrong secret, or anyone naming a login client).
 */
export function RequestName({ method, route, path }: { method: string; route: string; path: string | null }) {
  const grantType = grantTypeOf(route);
  if (grantType !== null) {
    return (
      <span className="font-sans text-slate-900">
        Token: <code className="font-mono text-xs whitespace-nowrap">{grantType}</code>
        {route.startsWith(UNAUTHENTICATED_ROUTE_PREFIX) ? (
          <span className="ml-2 inline-block">
            <Badge tone="neutral">Unauthenticated</Badge>
          </span>
        ) : null}
      </span>
    );
  }
  if (route === NO_ROUTE) {
    return (
      <span>
        <span className="break-all">
          {method} {path ?? "(unknown path)"}
        </span>{" "}
        <span className="font-sans text-xs text-slate-600">(no such route)</span>
      </span>
    );
  }
  return (
    <span>
      <RouteName route={route} />
      {method === "HEAD" ? " (HEAD)" : ""}
    </span>
  );
}
