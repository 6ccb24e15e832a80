// SEBGen's node:test reporter: one JSON document with every test and suite event, in order.
//
// node:test reports a test when it ends, children before their suite, with its nesting depth;
// the title path is rebuilt from that order by sandbox/js_report.py, so this reporter stays a
// plain transcript that works across Node versions (20 to 24 report suites and files differently).
//   node --test --test-reporter=/path/_node_test_reporter.mjs --test-reporter-destination=/path/report.json FILES
import { createRequire } from "node:module";
import { isDeepStrictEqual, inspect } from "node:util";

// the run's key is read when the reporter loads, before any test code runs (see _reporter_signing.cjs)
const signed = createRequire(import.meta.url)("./_reporter_signing.cjs").takeSigner();

const VALUE_LIMIT = 4000;
const STDERR_LIMIT = 4000; // per file: why a file that failed to load failed is only said there

// A value as JSON when it survives JSON unchanged, else as util.inspect's text.
function value(v) {
  if (v === null || typeof v === "string" || typeof v === "boolean") return { json: v };
  if (typeof v === "number" && Number.isFinite(v)) return { json: v };
  if (v !== undefined && typeof v !== "function" && typeof v !== "symbol" && typeof v !== "bigint") {
    try {
      const text = JSON.stringify(v);
      if (text !== undefined && isDeepStrictEqual(JSON.parse(text), v)) return { json: v };
    } catch {
      // cycles and getters that throw fall through to inspect
    }
  }
  return { inspect: inspect(v, { depth: 6, breakLength: Infinity }).slice(0, VALUE_LIMIT) };
}

// node:test wraps what the test threw in an ERR_TEST_FAILURE whose `cause` is the thrown value.
function error(err) {
  if (!err) return null;
  const thrown = err.code === "ERR_TEST_FAILURE" && err.cause !== undefined ? err.cause : err;
  const out = {
    failure_type: err.failureType ? String(err.failureType) : "",
    name: String((thrown && (thrown.name || (thrown.constructor && thrown.constructor.name))) || "Error"),
    message: String(thrown && thrown.message !== undefined ? thrown.message : thrown),
    stack: String((thrown && thrown.stack) || ""),
  };
  if (thrown && thrown.code !== undefined) out.code = String(thrown.code);
  if (thrown && typeof thrown === "object" && ("expected" in thrown || "actual" in thrown)) {
    out.expected = value(thrown.expected);
    out.actual = value(thrown.actual);
    if (thrown.operator !== undefined) out.operator = String(thrown.operator);
  }
  return out;
}

export default async function* sebgenReporter(source) {
  const events = [];
  const stderr = {};
  for await (const event of source) {
    if (event.type === "test:stderr" && event.data.file) {
      const seen = stderr[event.data.file] || "";
      if (seen.length < STDERR_LIMIT) stderr[event.data.file] = (seen + event.data.message).slice(0, STDERR_LIMIT);
      continue;
    }
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const data = event.data;
    const details = data.details || {};
    events.push({
      outcome: event.type === "test:pass" ? "passed" : "failed",
      name: String(data.name),
      nesting: data.nesting,
      file: data.file || null,
      line: data.line || null,
      suite: details.type === "suite",
      skip: data.skip !== undefined && data.skip !== false,
      todo: data.todo !== undefined && data.todo !== false,
      error: event.type === "test:fail" ? error(details.error) : null,
    });
  }
  yield signed(JSON.stringify({ reporter: "sebgen-node-test", events, stderr }));
}
