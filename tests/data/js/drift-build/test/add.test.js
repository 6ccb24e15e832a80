const test = require("node:test");
const assert = require("node:assert");
const add = require("../dist/index.js");

test("adds numbers", () => {
  assert.strictEqual(add(1, 2), 3);
});

test("adds numeric strings, as is-number 7 accepts them", () => {
  assert.strictEqual(add("1", "2"), 3);
});
