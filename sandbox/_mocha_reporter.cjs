// SEBGen's mocha reporter: one JSON document with each test's title path, file and outcome.
//
// Mocha's own `json` reporter joins the describe path and the title with spaces (`fullTitle`), so
// a title path cannot be read back from it, and tests that a failing hook kept from running are
// absent from it. This reporter keeps the titles apart and reports those tests too.
// Works with mocha 5 to 11 (CommonJS, only the runner's event names).
//   mocha --reporter /path/_mocha_reporter.cjs --reporter-options output=/path/report.json FILES
"use strict";

// what the report is made with, taken when mocha loads the reporter (before the tests load): code
// under test that reassigns these later does not change the report
const { writeFileSync } = require("fs");
const util = require("util");
const stringify = JSON.stringify;
const sign = require("./_reporter_signing.cjs").takeSigner();

const VALUE_LIMIT = 4000;

// mocha's own methods as they are when mocha loads this reporter, before the tests load: code under
// test shares mocha's process and could reassign one (Runner#fail emitting "pass") so that a failing
// test is reported as passed. A run where one changed gets no signature, only the names.
const TAMPERED_PREFIX = "sebgen-tampered ";
function harnessMethods() {
  const prototypes = [["EventEmitter", require("events").prototype]];
  for (const file of Object.keys(require.cache)) {
    const m = /[\\/]mocha[\\/]lib[\\/](runner|runnable|test|suite|hook)\.js$/.exec(file);
    const exported = m && require.cache[file].exports;
    if (exported && exported.prototype) prototypes.push([m[1], exported.prototype]);
  }
  const methods = [];
  for (const [name, proto] of prototypes) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      const d = Object.getOwnPropertyDescriptor(proto, key);
      if (typeof d.value === "function") methods.push([`${name}.prototype.${key}`, proto, key, d.value]);
    }
  }
  return methods;
}
const HARNESS = harnessMethods();

function reassigned() {
  const names = [];
  for (const [name, proto, key, original] of HARNESS) if (proto[key] !== original) names.push(name);
  return names;
}

// A value as JSON when it survives JSON unchanged, else as util.inspect's text.
function value(v) {
  if (v === null || typeof v === "string" || typeof v === "boolean") return { json: v };
  if (typeof v === "number" && Number.isFinite(v)) return { json: v };
  if (v !== undefined && typeof v !== "function" && typeof v !== "symbol" && typeof v !== "bigint") {
    try {
      const text = JSON.stringify(v);
      if (text !== undefined && util.isDeepStrictEqual(JSON.parse(text), v)) return { json: v };
    } catch (e) {
      // cycles and getters that throw fall through to inspect
    }
  }
  return { inspect: util.inspect(v, { depth: 6, breakLength: Infinity }).slice(0, VALUE_LIMIT) };
}

function error(err) {
  if (!err) return null;
  const out = {
    name: String(err.name || (err.constructor && err.constructor.name) || "Error"),
    message: String(err.message === undefined ? err : err.message),
    stack: String(err.stack || ""),
  };
  if (err.code !== undefined) out.code = String(err.code);
  if ("expected" in err || "actual" in err) {
    out.expected = value(err.expected);
    out.actual = value(err.actual);
    if (err.operator !== undefined) out.operator = String(err.operator);
  }
  return out;
}

function titlePath(runnable) {
  const titles = [runnable.title];
  for (let s = runnable.parent; s && !s.root; s = s.parent) titles.unshift(s.title);
  return titles;
}

function fileOf(runnable) {
  for (let r = runnable; r; r = r.parent) if (r.file) return r.file;
  return null;
}

function allTests(suite, out) {
  for (const t of suite.tests) out.push(t);
  for (const s of suite.suites) allTests(s, out);
  return out;
}

function SebgenReporter(runner, options) {
  const output = (options && options.reporterOptions && options.reporterOptions.output) || process.env.SEBGEN_MOCHA_REPORT;
  const results = new Map(); // test -> record, in the order outcomes were known
  const hookFailures = [];

  function record(test, outcome, err) {
    if (results.has(test)) return;
    results.set(test, { path: titlePath(test), file: fileOf(test), outcome: outcome, error: error(err) });
  }

  runner.on("pass", (test) => record(test, "passed"));
  runner.on("pending", (test) => record(test, "skipped"));
  runner.on("fail", (runnable, err) => {
    if (runnable.type !== "hook") return record(runnable, "failed", err);
    // A failing hook stops its suite: every test of it without an outcome yet is in error.
    hookFailures.push({ title: runnable.title, path: titlePath(runnable), file: fileOf(runnable), error: error(err) });
    for (const test of allTests(runnable.parent, [])) record(test, "error", err);
  });
  runner.once("end", () => {
    const doc = { reporter: "sebgen-mocha", tests: Array.from(results.values()), hook_failures: hookFailures };
    const changed = sign.keyed ? reassigned() : [];
    const text = changed.length ? `${TAMPERED_PREFIX}${changed.join(" ")}\n${stringify(doc)}` : sign(stringify(doc));
    if (output) writeFileSync(output, text);
    else process.stdout.write(text + "\n");
  });
}

module.exports = SebgenReporter;
