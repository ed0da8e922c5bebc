import type { Metadata } from "next";
import Link from "next/link";
import { DocsPage } from "@/components/docs/docs-page";
import { CodeBlock } from "@/components/ui/code-block";

export const metadata: Metadata = { title: "Versioning and changes" };

/** The promise about how /api/v1 changes (the changelog page lists what did). */
export default function ChangesPage() {
  return (
    <DocsPage
      path="/docs/changes"
      title="Versioning and changes"
      lead="What may change in /api/v1 without notice, what never will, and how a removal is announced before it happens."
    >
      <h2 id="additive">Changes without notice</h2>
      <p>
        <code>/api/v1</code> grows. These changes can happen at any time, are listed in the{" "}
        <Link href="/docs/changelog">changelog</Link>, and must not break a well-written client:
      </p>
      <ul>
        <li>new endpoints, and new optional query parameters, headers or body fields on existing ones;</li>
        <li>new fields in response objects (ignore fields you do not know; never reject a response for having more);</li>
        <li>
          new error codes (treat an unknown <code>error.code</code> by its HTTP status: a 4xx is your request, a 5xx is
          ours) and new values of open lists such as notification types or identifier types;
        </li>
        <li>new event types on webhooks and the event stream (ignore types you did not subscribe to);</li>
        <li>new scopes, new rate-limit policies, higher limits, and the wording of <code>message</code> fields.</li>
      </ul>

      <h2 id="never">What never changes in /api/v1</h2>
      <ul>
        <li>a path, method or response field is not removed or renamed, and its type does not change;</li>
        <li>an enum value a response may carry is not taken away, and an error code keeps its meaning and HTTP status;</li>
        <li>a parameter that was optional does not become required, and no new required parameter appears;</li>
        <li>
          the envelopes (<code>{`{ "data": … }`}</code>, <code>{`{ "error": { "code", "message" } }`}</code>), the
          authentication scheme and the meaning of a scope stay as they are.
        </li>
      </ul>
      <p>
        Anything that would break these promises goes to a new version (<code>/api/v2</code>), or follows the removal
        process below. Security fixes are the one exception: if keeping a behaviour would put users at risk, it changes
        at once and the changelog says why.
      </p>

      <h2 id="removal">How a removal is announced</h2>
      <ol>
        <li>
          A <Link href="/docs/changelog">changelog</Link> entry names what goes, why, what to use instead, and the date
          it stops working.
        </li>
        <li>
          From that day, every response of the affected endpoint carries a <code>Deprecation</code> header (RFC 9745: the
          date the deprecation was announced) and a <code>Sunset</code> header (RFC 8594: the date it stops working),
          plus a <code>Link</code> to the changelog entry.
        </li>
        <li>
          The sunset date is at least <strong>6 months</strong> after the announcement. Until then, everything keeps
          working exactly as before.
        </li>
      </ol>
      <CodeBlock
        title="A deprecated endpoint's response"
        language="http"
        code={`HTTP/1.1 200 OK
Deprecation: @1798761600
Sunset: Sat, 01 Jul 2028 00:00:00 GMT
Link: <https://platform.example/docs/changelog>; rel="deprecation"; type="text/html"`}
      />
      <p>
        Log these headers in your client (the SDK surfaces them) so that a deprecation reaches you even if you do not
        read the changelog.
      </p>

      <h2 id="how-we-check">How we keep the promise</h2>
      <p>
        The API&apos;s OpenAPI document (<code>/api/v1/openapi.json</code>) is generated from the code. A copy of it is
        committed, and every build compares the generated document with that copy using{" "}
        <a href="https://www.npmjs.com/package/api-smart-diff">api-smart-diff</a>: a removed path, method or response
        field, a removed enum value or a newly required parameter fails the build unless the changelog records it as a
        breaking change with its deprecation and sunset dates.
      </p>
    </DocsPage>
  );
}
