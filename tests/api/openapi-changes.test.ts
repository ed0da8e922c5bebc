import { describe, expect, it } from "vitest";
import { checkOpenApiCompatibility, describeReport, generateOpenApiSnapshot } from "../../scripts/openapi-snapshot";

/**
 * Issue 27, "a promise about change" (/docs/changes): the generated OpenAPI document of /api/v1 may
 * differ from the committed docs/openapi.json only by what the changelog (docs/api-changelog.json)
 * records as breaking; api-smart-diff decides what is breaking, with our promise where the two
 * differ (a removed response enum value or optional response field is breaking too). Each "(the check itself)" case breaks a copy of the document the way the issue
 * names (a removed field, path or enum value, a newly required parameter) and must be caught.
 */
const TIMEOUT = 60_000;

/** The parts of the generated document the cases below change. */
interface Document {
  paths: { "/global-chat/messages": { get: { parameters: { name: string; in: string; required?: boolean; schema: object }[] } } };
  components: {
    schemas: {
      ChatMessage: { properties: { text?: object; edited_at?: object }; required: string[] };
      Notification: { properties: { type: { enum: string[] } } };
    };
  };
}

async function mutated(change: (doc: Document) => void) {
  const committed = await generateOpenApiSnapshot();
  const doc = JSON.parse(committed) as Document;
  change(doc);
  return { committed, generated: JSON.stringify(doc, null, 2) };
}

describe("OpenAPI compatibility with the committed document", () => {
  it(
    "the generated document has no unrecorded breaking change, and docs/openapi.json is current",
    async () => {
      const report = await checkOpenApiCompatibility();
      expect(report.unrecorded, describeReport(report)).toEqual([]);
      expect(report.stale, describeReport(report)).toBe(false);
    },
    TIMEOUT,
  );

  it(
    "(the check itself) fails on a removed response field, and passes once the changelog records it",
    async () => {
      const { committed, generated } = await mutated((doc) => {
        const message = doc.components.schemas.ChatMessage;
        delete message.properties.text;
        message.required = message.required.filter((f) => f !== "text");
      });

      const unrecorded = await checkOpenApiCompatibility({ committed, generated, changelog: { entries: [] } });
      expect(unrecorded.unrecorded.map((c) => c.location)).toEqual(
        expect.arrayContaining([
          "paths./global-chat/messages.get.responses.200.content.application/json.schema.properties.data.properties.messages.items.properties.text",
          "paths./global-chat/messages.post.responses.201.content.application/json.schema.properties.data.properties.text",
        ]),
      );
      expect(describeReport(unrecorded)).toMatch(/does not record/);

      const entry = {
        date: "2026-12-01",
        title: "Chat message text moves",
        changes: ["The chat message's text field goes."],
        breaking: [
          { location: "paths./global-chat/messages", description: "`text` removed from chat messages", deprecated: "2026-12-01", sunset: "2027-06-01" },
        ],
      };
      const recorded = await checkOpenApiCompatibility({ committed, generated, changelog: { entries: [entry] } });
      expect(recorded.unrecorded).toEqual([]);
      expect(recorded.recorded.length).toBeGreaterThanOrEqual(2);
      expect(recorded.stale).toBe(true);
    },
    TIMEOUT,
  );

  it(
    "(the check itself) fails on a removed optional response field too",
    async () => {
      const { committed, generated } = await mutated((doc) => delete doc.components.schemas.ChatMessage.properties.edited_at);
      const report = await checkOpenApiCompatibility({ committed, generated, changelog: { entries: [] } });
      expect(report.unrecorded.map((c) => c.location)).toEqual(
        expect.arrayContaining(["paths./global-chat/messages.post.responses.201.content.application/json.schema.properties.data.properties.edited_at"]),
      );
    },
    TIMEOUT,
  );

  it(
    "(the check itself) fails on a removed path",
    async () => {
      const { committed, generated } = await mutated((doc) => delete (doc.paths as Record<string, unknown>)["/directory/resolve"]);
      const report = await checkOpenApiCompatibility({ committed, generated, changelog: { entries: [] } });
      expect(report.unrecorded).toEqual([expect.objectContaining({ location: "paths./directory/resolve.post" })]);
    },
    TIMEOUT,
  );

  it(
    "(the check itself) fails on a newly required parameter, and on an optional one made required, not on a new optional one",
    async () => {
      const room = { name: "room", in: "query", schema: { type: "string" } };
      const added = await mutated((doc) => doc.paths["/global-chat/messages"].get.parameters.push({ ...room, required: true }));
      const report = await checkOpenApiCompatibility({ ...added, changelog: { entries: [] } });
      expect(report.unrecorded).toEqual([expect.objectContaining({ location: expect.stringMatching(/^paths\.\/global-chat\/messages\.get\.parameters\./) })]);
      expect(describeReport(report)).toMatch(/required query parameter `room`/);

      const tightened = await mutated((doc) => {
        doc.paths["/global-chat/messages"].get.parameters.find((p) => p.name === "limit")!.required = true;
      });
      expect((await checkOpenApiCompatibility({ ...tightened, changelog: { entries: [] } })).unrecorded).toHaveLength(1);

      const optional = await mutated((doc) => doc.paths["/global-chat/messages"].get.parameters.push({ ...room, required: false }));
      const fine = await checkOpenApiCompatibility({ ...optional, changelog: { entries: [] } });
      expect(fine.unrecorded).toEqual([]);
      expect(fine.stale).toBe(true);
    },
    TIMEOUT,
  );

  it(
    "(the check itself) fails on a removed enum value (a notification type), not on an added one",
    async () => {
      const notificationType = (doc: Document) => doc.components.schemas.Notification.properties.type;
      const removed = await mutated((doc) => notificationType(doc).enum.pop());
      const report = await checkOpenApiCompatibility({ ...removed, changelog: { entries: [] } });
      expect(report.unrecorded.map((c) => c.location)).toEqual(
        expect.arrayContaining([expect.stringMatching(/^paths\.\/me\/notifications\.get\.responses\.200\..*\.type\.enum\./)]),
      );
      const added = await mutated((doc) => notificationType(doc).enum.push("birthday"));
      expect((await checkOpenApiCompatibility({ ...added, changelog: { entries: [] } })).unrecorded).toEqual([]);
    },
    TIMEOUT,
  );
});
