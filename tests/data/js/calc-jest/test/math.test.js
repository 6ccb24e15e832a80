"use strict";
const { add, sub } = require("../lib/math.js");

describe("math", () => {
  it("adds", () => {
    expect(add(2, 3)).toBe(5);
  });
  it("subtracts", () => {
    expect(sub(5, 3)).toBe(2);
  });
});
