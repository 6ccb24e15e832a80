"use strict";
const { it } = require("node:test");

it("never ends", async () => {
  await new Promise(() => setInterval(() => {}, 1000));
});
