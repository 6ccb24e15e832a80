// SEBGen's vitest reporter: one JSON document with each test's title path, file, outcome and,
// for a failure, the error with the check's expected and actual values.
//
// vitest's own `json` reporter keeps only each error's stack text; the values its assertion
// errors carry are lost. Vitest 0.x to 3 call onFinished(files); 3 and later call
// onTestRunEnd(testModules) (4 calls only that one). Vitest has already turned a non-string
// expected/actual into display text, so values are reported as text ({"inspect": ...}).
//   vitest run --reporter=/path/_vitest_reporter.mjs --outputFile=/path/report.json FILES
import { createRequire } from "node:module";
import { writeFileSync } from "node:fs";

const VALUE_LIMIT = 4000;

// the run's key is read when the reporter loads, before any test code runs (see _reporter_signing.cjs)
const signed = createRequire(import.meta.url)("./_reporter_signing.cjs").takeSigner();

function error(err) {
  if (!err) return null;
  const out = {
    name: String(err.name || "Error"),
    message: String(err.message === undefined ? err : err.message),
    stack: String(err.stack || err.stackStr || ""),
  };
  // vitest 2 gives every error an "undefined" expected/actual; only a comparison's are values
  const compared = err.showDiff || /AssertionError/.test(out.name);
  if (compared && (err.expected !== undefined || err.actual !== undefined)) {
    out.expected = { inspect: String(err.expected).slice(0, VALUE_LIMIT) };
    out.actual = { inspect: String(err.actual).slice(0, VALUE_LIMIT) };
    if (err.operator !== undefined) out.operator = String(err.operator);
  }
  return out;
}

function write(output, tests, loadErrors) {
  const doc = { reporter: "sebgen-vitest", tests, load_errors: loadErrors };
  const text = signed(JSON.stringify(doc));
  if (output) writeFileSync(output, text);
  else process.stdout.write(text + "\n");
}

// vitest 0.x-3: File tasks, a tree of suites and tests
function fromTasks(files) {
  const tests = [];
  const loadErrors = {};
  const visit = (task, path, file) => {
    if (task.type === "suite" || task.tasks) {
      for (const child of task.tasks || []) visit(child, task === file ? path : [...path, task.name], file);
      return;
    }
    const state = task.result && task.result.state;
    const skipped = task.mode === "skip" || task.mode === "todo" || state === "skip" || state === "todo";
    const outcome = skipped ? "skipped" : state === "pass" ? "passed" : state === "fail" ? "failed" : "error";
    const errors = (task.result && task.result.errors) || [];
    tests.push({ path: [...path, task.name], file: file.filepath, outcome, error: error(errors[0]) });
  };
  for (const file of files) {
    const errors = (file.result && file.result.errors) || [];
    if (errors.length && !(file.tasks || []).length) loadErrors[file.filepath] = error(errors[0]);
    else visit(file, [], file);
  }
  return [tests, loadErrors];
}

// vitest 3+: TestModules with TestCases
function fromModules(modules) {
  const tests = [];
  const loadErrors = {};
  for (const module of modules) {
    const moduleErrors = module.errors ? module.errors() : [];
    const cases = Array.from(module.children.allTests());
    if (moduleErrors.length && !cases.length) {
      loadErrors[module.moduleId] = error(moduleErrors[0]);
      continue;
    }
    for (const test of cases) {
      const path = [test.name];
      for (let p = test.parent; p && p.type === "suite"; p = p.parent) path.unshift(p.name);
      const result = test.result();
      const state = result.state;
      const skipped = state === "skipped" || test.options.mode === "skip" || test.options.mode === "todo";
      const outcome = skipped ? "skipped" : state === "passed" ? "passed" : state === "failed" ? "failed" : "error";
      tests.push({ path, file: module.moduleId, outcome, error: error((result.errors || [])[0]) });
    }
  }
  return [tests, loadErrors];
}

export default class SebgenVitestReporter {
  onInit(ctx) {
    const outputFile = ctx.config.outputFile;
    this.output = typeof outputFile === "string" ? outputFile : outputFile && outputFile.sebgen;
  }

  onFinished(files) {
    if (files) write(this.output, ...fromTasks(files));
  }

  onTestRunEnd(modules) {
    write(this.output, ...fromModules(modules));
  }
}
