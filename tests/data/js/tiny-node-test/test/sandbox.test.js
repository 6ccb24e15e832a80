"use strict";
// What the sandbox promises a run: no network, not root, node_modules not writable.
const { it } = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const net = require("node:net");

it("runs as a non-root user", () => {
  assert.notStrictEqual(process.getuid(), 0);
});

it("reaches the network", async () => {
  await new Promise((resolve, reject) => {
    const socket = net.connect({ host: "1.1.1.1", port: 443, timeout: 3000 }, () => {
      socket.destroy();
      resolve();
    });
    socket.on("error", reject);
    socket.on("timeout", () => reject(new Error("timeout")));
  });
});

it("writes into node_modules", () => {
  fs.writeFileSync("node_modules/sebgen-was-here", "x");
});
