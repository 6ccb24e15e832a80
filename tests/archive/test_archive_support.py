"""Texts and records shared by the archive tests (real language for the real model); holds no tests."""

STATEMENTS = {
    "dates": "Parsing an ISO 8601 date string that carries a timezone offset such as +05:30 raises "
    "ValueError instead of returning an aware datetime.",
    "retry": "The HTTP client gives up immediately when the server resets the connection; it should "
    "retry idempotent requests with exponential backoff.",
    "matrix": "Multiplying two empty matrices returns an array of the wrong shape instead of a zero-sized result.",
    "csv": "Reading a CSV file whose quoted fields contain embedded newlines splits one record into several rows.",
    "cache": "The LRU cache evicts the most recently used entry instead of the least recently used one "
    "when it reaches its size limit.",
    "cli": "Running the command line tool with an unknown flag prints a Python traceback instead of a "
    "short usage message.",
    "unicode": "Slugify drops non-ASCII letters entirely, so German titles with umlauts produce empty slugs.",
    "config": "Environment variables do not override values from the YAML configuration file although "
    "the documentation says they take precedence.",
}

PARAPHRASES = {
    "dates": "When a datetime text in ISO format includes a UTC offset like +05:30 the parser throws a "
    "ValueError rather than producing a timezone-aware value.",
    "cache": "Once full, the least-recently-used cache throws away the newest item instead of the oldest one.",
}

UNRELATED = "Add a recipe for sourdough bread with a long cold fermentation and a crisp crust."


def task(key: str, **fields) -> dict:
    """A task record for STATEMENTS[key] with SEBGen-style fields."""
    record = {
        "instance_id": f"demo__{key}-1",
        "repo": "demo/repo",
        "problem_statement": STATEMENTS[key],
        "patch": "",
        "strategy_type": "bug_fix",
        "strategy_id": "s-1",
        "difficulty": 0.5,
        "difficulty_level": "medium",
        "domain": "general",
        "skills": ["python"],
    }
    record.update(fields)
    return record


_COMPONENTS = [
    "date parser",
    "HTTP client",
    "CSV reader",
    "LRU cache",
    "argument parser",
    "YAML loader",
    "thread pool",
    "JSON encoder",
    "path resolver",
    "template engine",
    "rate limiter",
    "logging handler",
    "zip extractor",
    "image resizer",
    "SQL query builder",
]
_FAULTS = [
    "raises KeyError on empty input",
    "leaks file handles when an exception is raised",
    "returns stale results after the configuration changes",
    "hangs forever when the remote side closes the socket",
]


def many_statements(n: int) -> list[str]:
    """n distinct statements built from component x fault combinations (n <= 60)."""
    out = [f"The {c} {f}." for f in _FAULTS for c in _COMPONENTS]
    assert n <= len(out)
    return out[:n]
