// The signing SEBGen's reporters share (mocha's loads it with require, the ESM ones through
// createRequire). See sandbox/js_run.py: the report is signed (HMAC-SHA256) with the run's key,
// which the supervisor hands over through a pipe ($SEBGEN_KEY_FD, 0: the runner's standard input,
// so a launcher that starts the runner as a child passes it on).
"use strict";

// taken when this module loads, with the reporter, before any test code runs
const { createHmac } = require("crypto");
const { closeSync, readFileSync } = require("fs");

const MAC_PREFIX = "sebgen-mac ";
// what a reporter that expected a key and found none writes first, with why (the run is refused)
const NO_KEY_PREFIX = "sebgen-nokey ";

// {key, why}: the key from the pipe (drained), or null, with why when the run expected one.
// Without $SEBGEN_KEY_FD (a run on the host) reports go out unsigned.
function readKey() {
  const raw = process.env.SEBGEN_KEY_FD;
  delete process.env.SEBGEN_KEY_FD;
  if (raw === undefined) return { key: null, why: "" };
  const fd = Number(raw);
  if (!Number.isInteger(fd) || fd < 0) return { key: null, why: `$SEBGEN_KEY_FD is not a descriptor: ${raw}` };
  try {
    const key = readFileSync(fd);
    if (key.length) return { key, why: "" };
    return { key: null, why: "the key pipe was empty when the reporter loaded (something read it first)" };
  } catch (e) {
    return { key: null, why: `the key pipe could not be read when the reporter loaded (${e.code || e.message})` };
  } finally {
    // standard input stays open, drained (a closed 0 would be handed to the next file opened)
    if (fd > 2) {
      try {
        closeSync(fd);
      } catch (e) {
        // already closed
      }
    }
  }
}

let taken = false;

// The reporter's `sign(text)`: the text as the report file holds it (`sign.keyed`: signed with a
// key). Handed out once, to the first caller (the reporter, when it loads): test code that requires
// this module later gets no key.
function takeSigner() {
  const { key, why } = taken ? { key: null, why: "the key was taken before the reporter loaded" } : readKey();
  taken = true;
  let sign = (text) => text;
  if (key) sign = (text) => `${MAC_PREFIX}${createHmac("sha256", key).update(text).digest("hex")}\n${text}`;
  else if (why) sign = (text) => `${NO_KEY_PREFIX}${why}\n${text}`;
  sign.keyed = Boolean(key);
  return sign;
}

module.exports = { takeSigner };
