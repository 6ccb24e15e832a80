"use strict";
const assert = require("node:assert");
const { add, sub } = require("../lib/math.js");

describe("math", () => {
  it("adds", () => {
    assert.strictEqual(add(2, 3), 5);
  });
  it("subtracts", () => {
    assert.strictEqual(sub(5, 3), 2);
  });
});
