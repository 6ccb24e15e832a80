// The node:test file that runs a JS/TS statement's reproductions in the sandbox (tasks.reproduction).
//
// The JS counterpart of _reproduction_probe.py. It is copied into the tree with its JSON spec and
// run by node:test in the task's image, its verdicts coming back through SEBGen's node:test
// reporter. Each reproduction runs in its own Node process, bounded in time, saved inside this
// folder (a module when it imports, else a CommonJS script), where `require("<the package's own
// name>")` finds the checkout itself: a node_modules link to the tree's root is made beside it.
// Per reproduction three tests, named "[<id>-buggy]", "[<id>-fixed]", "[<id>-seen]":
// - buggy passes when the run behaves as the statement says the current code does (the stated
//   error name; a failed check whose actual side is the stated value; a failed assert.throws for
//   "nothing is thrown"; else any failure);
// - fixed passes when the run ends without an error;
// - seen (when the spec asks) always fails, its message saying what the run did.
"use strict";

const test = require("node:test");
const fs = require("node:fs");
const path = require("node:path");
const childProcess = require("node:child_process");

const HERE = __dirname;
const ROOT = path.dirname(HERE);
const SPEC = JSON.parse(fs.readFileSync(path.join(HERE, "sebgen_reproductions.json"), "utf8"));

// Runs in the child: argv[2] the code's file, argv[3] where the outcome goes.
const RUNNER = String.raw`
const fs = require("node:fs");
const url = require("node:url");
const util = require("node:util");
const [file, out] = process.argv.slice(1); // node -e CODE FILE OUT: no script name in argv
let done = false;
function show(v) {
  const views = [];
  try { const j = JSON.stringify(v); if (j !== undefined) views.push(j); } catch (e) {}
  if (typeof v === "string") views.push(v);
  views.push(util.inspect(v, { depth: 6, breakLength: Infinity }));
  return views.map((s) => s.slice(0, 4000));
}
function save(result) {
  if (done) return;
  done = true;
  fs.writeFileSync(out, JSON.stringify(result));
}
function failed(err) {
  const e = err === null || err === undefined ? {} : err;
  const result = { status: "raised", type: String(e.name || typeof err), message: String(e.message || err).slice(0, 1000) };
  if (e.code === "ERR_ASSERTION" || e.name === "AssertionError") {
    result.assertion = true;
    result.operator = String(e.operator || "");
    if ("actual" in e) result.actual = show(e.actual);
    if ("expected" in e) result.expected = show(e.expected);
  }
  save(result);
  process.exit(0);
}
process.on("uncaughtException", failed);
process.on("unhandledRejection", failed);
process.on("exit", (code) => {
  if (code) save({ status: "raised", type: "exit", message: "the process exited with code " + code });
  else save({ status: "ok" });
});
(async () => {
  if (file.endsWith(".mjs")) await import(url.pathToFileURL(file).href);
  else require(file);
})().catch(failed);
`;

// The files package.json says the package is (main, module, exports): a reproduction imports those.
function entries(pkg) {
  const out = [pkg.main, pkg.module];
  const walk = (v) => {
    if (typeof v === "string") out.push(v);
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(pkg.exports && typeof pkg.exports === "object" && "." in pkg.exports ? pkg.exports["."] : pkg.exports);
  return out.filter((v) => typeof v === "string" && !v.includes("*"));
}

// A package whose entry files are built (dist/) and absent from the checkout is built first, with
// its own build script, as its users get it; the tests may import the sources and need no build.
function buildIfNeeded(pkg) {
  const missing = entries(pkg).some((entry) => !fs.existsSync(path.join(ROOT, entry)));
  const script = (pkg.scripts || {}).build;
  if (!missing || typeof script !== "string") return;
  const bin = path.join(ROOT, "node_modules", ".bin");
  childProcess.spawnSync("/bin/sh", ["-c", script], {
    cwd: ROOT,
    stdio: "ignore",
    timeout: (SPEC.build_timeout_s || 180) * 1000,
    killSignal: "SIGKILL",
    env: { ...process.env, PATH: `${bin}:${process.env.PATH || ""}` },
  });
}

function linkPackage() {
  // require("<name>") from here finds the checkout, as its users' code finds the installed package
  let name = "";
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
    name = pkg.name || "";
    buildIfNeeded(pkg);
  } catch (e) {
    return;
  }
  if (!name || name.includes("..")) return;
  const link = path.join(HERE, "node_modules", name);
  fs.mkdirSync(path.dirname(link), { recursive: true });
  try {
    fs.symlinkSync(path.relative(path.dirname(link), ROOT) || ".", link, "dir");
  } catch (e) {
    // already there
  }
}

const runs = new Map();

function run(kase) {
  if (runs.has(kase.id)) return runs.get(kase.id);
  const file = path.join(HERE, `reproduction-${kase.id}${kase.module ? ".mjs" : ".cjs"}`);
  const out = path.join(HERE, `outcome-${kase.id}.json`);
  fs.writeFileSync(file, kase.code);
  const child = childProcess.spawnSync(process.execPath, ["-e", RUNNER, file, out], {
    cwd: ROOT,
    stdio: "ignore",
    timeout: SPEC.timeout_s * 1000,
    killSignal: "SIGKILL",
  });
  let result;
  if (child.error && child.error.code === "ETIMEDOUT") {
    result = { status: "timeout", type: "", message: `ran over ${SPEC.timeout_s} s` };
  } else {
    try {
      result = JSON.parse(fs.readFileSync(out, "utf8"));
    } catch (e) {
      result = { status: "died", type: "", message: "the process ended without a result" };
    }
  }
  runs.set(kase.id, result);
  return result;
}

// A value as stated and as shown compare without quotes, whitespace and the printers' type names.
function norm(text) {
  return String(text)
    .replace(/\b(Object|Array)\s*(?=[[{])/g, "")
    .replace(/['"`]/g, "")
    .replace(/,(\s*[}\]])/g, "$1")
    .replace(/\s+/g, "");
}

function shows(stated, views) {
  const want = norm(stated);
  return (views || []).some((view) => norm(view) === want);
}

function happened(result) {
  if (result.status === "ok") return "ran without an error";
  if (result.status === "timeout") return `did not finish within ${SPEC.timeout_s} s`;
  let text = `threw ${result.type}: ${result.message}`;
  if (result.actual) text += ` (the failed check's actual value is ${result.actual[0].slice(0, 200)})`;
  return text.slice(0, 600);
}

function behavesAsStated(claim, result) {
  if (result.status !== "raised") return false;
  if (claim.error) {
    // assert.throws(fn, /wanted/) fails with the error fn threw in its message
    const said = String(claim.said || "").replace(/^[\w$.]*: /, "");
    return result.type === claim.error || (Boolean(result.assertion) && said !== "" && result.message.includes(said));
  }
  if (claim.no_raise) return Boolean(result.assertion) && /missing expected exception|to throw/i.test(result.message);
  if (claim.observed !== null && claim.observed !== undefined) {
    return Boolean(result.assertion) && (shows(claim.observed, result.actual) || shows(claim.observed, result.expected));
  }
  return true;
}

linkPackage();
// the seen tests first, then the run's own state only (as the Python probe: every failure takes
// one of the report's evidence places)
const SIDES = SPEC.state === "buggy" || SPEC.state === "fixed" ? [SPEC.state] : ["buggy", "fixed"];
for (const kase of SPEC.cases) {
  if (kase.seen) {
    test(`[${kase.id}-seen]`, () => {
      throw new Error(happened(run(kase)));
    });
  }
}
for (const kase of SPEC.cases) {
  if (SIDES.includes("buggy")) {
    test(`[${kase.id}-buggy]`, () => {
      const result = run(kase);
      if (!behavesAsStated(kase.claim, result)) throw new Error(happened(result));
    });
  }
  if (SIDES.includes("fixed")) {
    test(`[${kase.id}-fixed]`, () => {
      const result = run(kase);
      if (result.status !== "ok") throw new Error(happened(result));
    });
  }
}
