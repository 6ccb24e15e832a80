import { describe, expect, test } from "vitest";
import { withBase, parseQuery } from "../src";
import { fixture } from "./helpers";

describe("withBase", () => {
  const cases = [{ base: "/admin", input: "/admin-dashboard", out: "/admin/admin-dashboard" }];
  for (const t of cases) {
    test(JSON.stringify(t.base) + " + " + JSON.stringify(t.input), () => {
      expect(withBase(t.input, t.base)).toBe(t.out);
    });
  }
});

describe("parseQuery", () => {
  test("keeps a repeated key", () => {
    const query = "a=1&a=2";
    expect(parseQuery("")).toEqual({});
    expect(parseQuery(query)).toEqual({ a: ["1", "2"] });
    expect(parseQuery("b")).toEqual({ b: "" });
  });

  test.only("reads the fixture", async () => {
    expect(parseQuery(fixture)).not.toBe(null);
  });
});
