// SEBGen's jest reporter: jest's own `--json` document (the shape sandbox/js_report.py reads),
// written by SEBGen and signed with the run's key, so a file the code under test writes at the
// report's path is refused. Jest loads reporters before any test runs (the key is read then).
// Works with jest 20 to 30 (the Reporter interface: constructor(globalConfig), onRunComplete).
//   jest --reporters=default --reporters=/path/_jest_reporter.cjs --outputFile=/path/report.json FILES
"use strict";

// taken when jest loads the reporter, before the tests load
const { writeFileSync } = require("fs");
const stringify = JSON.stringify;
const parse = JSON.parse;
const sign = require("./_reporter_signing.cjs").takeSigner();

// A value as `--json` writes it (JSON's rendering), or nothing when JSON cannot write it (a cycle).
function asJson(value) {
  try {
    const text = stringify(value);
    return text === undefined ? undefined : parse(text);
  } catch (e) {
    return undefined;
  }
}

function assertion(test) {
  const details = (test.failureDetails || []).map((detail) => {
    const matcher = detail && typeof detail === "object" ? detail.matcherResult : undefined;
    return matcher && typeof matcher === "object" ? { matcherResult: asJson(matcher) || {} } : {};
  });
  return {
    ancestorTitles: (test.ancestorTitles || []).map(String),
    title: String(test.title),
    fullName: String(test.fullName || ""),
    status: String(test.status),
    failureMessages: (test.failureMessages || []).map(String),
    failureDetails: details,
    location: asJson(test.location) || null,
  };
}

class SebgenJestReporter {
  constructor(globalConfig) {
    this.output = globalConfig && globalConfig.outputFile;
  }

  onRunComplete(contexts, results) {
    const files = (results.testResults || []).map((file) => ({
      name: String(file.testFilePath),
      message: String(file.failureMessage || ""),
      testExecError: file.testExecError ? { message: String(file.testExecError.message || "") } : null,
      assertionResults: (file.testResults || []).map(assertion),
    }));
    const text = sign(stringify({ reporter: "sebgen-jest", testResults: files }));
    if (this.output) writeFileSync(this.output, text);
    else process.stdout.write(text + "\n");
  }
}

module.exports = SebgenJestReporter;
