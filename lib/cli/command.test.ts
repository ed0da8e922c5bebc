import { parseArgs } from "node:util";
import { describe, expect, it } from "vitest";

import { attachDashedValues, JSON_OPTION, type Options } from "./command";

const options: Options = { session: { type: "string" }, all: { type: "boolean" }, ...JSON_OPTION };

function parse(args: string[]) {
  return parseArgs({ args: attachDashedValues(args, options), options, allowPositionals: true, strict: true });
}

describe("attachDashedValues", () => {
  it("takes a value that starts with a dash as the option's value", () => {
    // Session ids are base64url: one in 64 starts with "-", which parseArgs alone refuses as ambiguous.
    expect(() => parseArgs({ args: ["--session", "-BeN4-NdpVfRWIXw"], options, strict: true })).toThrow(/ambiguous/);
    expect(parse(["roamer", "--session", "-BeN4-NdpVfRWIXw", "--json"])).toEqual({
      values: { session: "-BeN4-NdpVfRWIXw", json: true },
      positionals: ["roamer"],
    });
  });

  it("leaves an option in a value's place alone, so a missing value is still an error", () => {
    expect(() => parse(["--session", "--json"])).toThrow(/ambiguous/);
    expect(() => parse(["--session", "-h"])).toThrow(/ambiguous/);
    expect(attachDashedValues(["--session", "--all"], options)).toEqual(["--session", "--all"]);
  });

  it("does not touch booleans, attached values or what follows --", () => {
    expect(attachDashedValues(["--all", "-x"], options)).toEqual(["--all", "-x"]);
    expect(attachDashedValues(["--session=-a", "x"], options)).toEqual(["--session=-a", "x"]);
    expect(attachDashedValues(["--", "--session", "-a"], options)).toEqual(["--", "--session", "-a"]);
  });
});
