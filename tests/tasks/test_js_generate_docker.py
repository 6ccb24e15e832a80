"""A JavaScript commit becomes a validated task through the production path: mining, the
Generator with the offline model, the Validator on `make_sandbox("docker")`, which hands the
JS-only snapshot to the JS Docker backend. The project is tests/data/js/tiny-node-test (node:test,
no dependencies) with a bug in `sub` that the second commit fixes and tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from environment import make_sandbox
from llm.client import LLMClient
from sandbox import Limits
from tasks.generate import Generator
from tasks.mining import mine
from tasks.strategy import SEED_PROMPTS, Strategy, StrategyType
from tasks.validate import Validator
from tests.sandbox_fixtures import git, make_repo, require_node20, write

pytestmark = pytest.mark.docker
PROJECT = Path(__file__).resolve().parents[1] / "data" / "js" / "tiny-node-test"
MATH = "test/math.test.js"


@pytest.fixture(scope="module")
def node_dist():
    return require_node20()


def test_a_javascript_fix_commit_becomes_a_validated_task(node_dist, tmp_path):
    files = {str(p.relative_to(PROJECT)): p.read_text() for p in PROJECT.rglob("*") if p.is_file()}
    tests = files[MATH]
    buggy = dict(files)
    buggy["lib/math.js"] = files["lib/math.js"].replace("(a, b) => a - b", "(a, b) => b - a")
    buggy[MATH] = tests[: tests.index('  it("subtracts"')] + "});\n"
    buggy = {k: v for k, v in buggy.items() if k in ("package.json", "lib/math.js", MATH)}
    repo, _ = make_repo(tmp_path / "tiny", buggy)
    write(repo, {"lib/math.js": files["lib/math.js"], MATH: tests})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Fix sub so that it subtracts the second number from the first")

    [candidate] = mine(repo).candidates
    assert candidate.language == "javascript"
    backend = make_sandbox("docker", limits=Limits(timeout_s=60), cache_dir=tmp_path / "cache", log=lambda m: None)
    try:
        llm = LLMClient()
        generator = Generator(llm=llm, validator=Validator(backend=backend, llm=llm))
        strategy = Strategy(strategy_type=StrategyType.BUG_FIX, prompt=SEED_PROMPTS[StrategyType.BUG_FIX][0])
        task = generator.generate(candidate, strategy)
    finally:
        backend.close()
    failed = task.failed_layer()
    assert failed is None, failed
    assert task.FAIL_TO_PASS == [f"{MATH}::math > subtracts"]
    assert task.PASS_TO_PASS == [f"{MATH}::math > adds"]
    [evidence] = task.failure_evidence()
    assert (evidence.expected, evidence.observed, evidence.function) == ("2", "-2", "sub")
    assert evidence.reproduction == (
        'const assert = require("node:assert");\nconst { add, sub } = require("sebgen-tiny-node-test");\n\n'
        "assert.strictEqual(sub(5, 3), 2);"
    )
    assert "```js\n" in task.problem_statement and "subtracts" not in task.problem_statement
