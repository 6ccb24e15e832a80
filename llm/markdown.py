"""The structure of a statement's markdown: fenced code blocks, paragraphs and headings.

The writer cuts a long statement along it, and the reproduction check drops what a removed block
leaves behind; both must agree on what a block and a heading are."""

from __future__ import annotations

import re

FENCE = "```"
# a block whose heading says this runs after the nearest earlier block's lines but its last (its
# failing check): the writer shows a shared setup once, and the reproduction check runs it so
SAME_SETUP = "the same setup as above"
# a block whose heading says this runs after the helpers (functions, classes) the nearest earlier
# block defining them shows: the writer shows a test module's helpers once
DEFINED_ABOVE = "as defined above"


def code_block_lines(lines: list[str]) -> list[bool]:
    """For each line, whether it is part of a fenced code block, its fences included."""
    flags, fenced = [], False
    for line in lines:
        fence = line.lstrip().startswith(FENCE)
        flags.append(fenced or fence)
        fenced = fenced != fence
    return flags


def paragraphs(text: str) -> list[str]:
    """The paragraphs of ``text`` (blank-line separated); a fenced code block is never split."""
    lines = text.strip().split("\n")
    found: list[list[str]] = [[]]
    for line, in_block in zip(lines, code_block_lines(lines)):
        if not line.strip() and not in_block:
            if found[-1]:
                found.append([])
            continue
        found[-1].append(line)
    return ["\n".join(para) for para in found if para]


def is_path(span: str) -> bool:
    """An inline span that names a file or folder (`pkg/mod.py`, `tests/`), not code that divides."""
    return bool(re.fullmatch(r"[\w.-]+(?:/[\w.-]+)+/?|[\w.-]+/", span.strip())) and bool(
        re.search(r"\.\w+$|/$", span.strip())
    )


def is_heading(text: str) -> bool:
    """A line or paragraph that announces what follows it (a block, a list of cases): it ends in ':'."""
    return text.rstrip().endswith(":")


# the heading over a statement's first block, and over each block after it
EVIDENCE_HEADS = ["Steps to reproduce:", "How to reproduce:", "Reproduction:"]
MORE_HEADS = ["Also:", "Another failing case:", "It also fails here:", "This one fails too:"]


def with_first_block_led(statement: str) -> str:
    """The statement whose first block is introduced as the first: when the block that led was
    dropped, the next one's "Also:" would point back at nothing."""
    lines = statement.split("\n")
    in_block = code_block_lines(lines)
    first = next((i for i, flag in enumerate(in_block) if flag), None)
    head = next((i for i in range(first - 1, 0, -1) if lines[i].strip()), None) if first else None
    if head is not None and lines[head].strip() in MORE_HEADS:
        lines[head] = EVIDENCE_HEADS[1]
    return "\n".join(lines)


def without_dangling_heads(statement: str) -> str:
    """The statement without a heading paragraph (one line ending in ':') that nothing follows any
    more, or only prose: what it introduced (a block, a list of cases) was dropped."""
    lines = statement.split("\n")
    in_block = code_block_lines(lines)
    dangling = set()
    for i, line in enumerate(lines):
        if not i or in_block[i] or not is_heading(line) or lines[i - 1].strip():  # the title stays
            continue
        following = next((ln for ln in lines[i + 1 :] if ln.strip()), "")
        if not following.lstrip().startswith((FENCE, "- ", "* ")):
            dangling.add(i)
    return "\n".join(line for i, line in enumerate(lines) if i not in dangling)


_SNIPPET = re.compile(r"\b(?:snippet|code above|block above|reproduction above|the last line)\b", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`])")


def without_snippet_talk(statement: str) -> str:
    """The statement without the sentences that speak of a snippet, when none is shown any
    more (its blocks were dropped): an "Expected behaviour:" line goes with its "Actual
    behaviour:" line, since one side alone states nothing."""
    out: list[str] = []
    skip_actual = False
    for line in statement.split("\n"):
        if skip_actual and line.startswith("Actual behaviour:"):
            skip_actual = False
            continue
        skip_actual = False
        if not _SNIPPET.search(line):
            out.append(line)
            continue
        if line.startswith("Expected behaviour:"):
            skip_actual = True
            continue
        if line.startswith("Actual behaviour:"):
            if out and out[-1].startswith("Expected behaviour:"):
                out.pop()
            continue
        kept = [sentence for sentence in _SENTENCE_END.split(line) if not _SNIPPET.search(sentence)]
        if kept:
            out.append(" ".join(kept))
    return "\n".join(out)


def test_input_part(path: str, diff: str, omitted: int = 0) -> str:
    """A file the withheld tests read, given as its diff (the writer's), with the count of its
    changed lines not shown."""
    part = f"`{path}`:\n\n{FENCE}diff\n{diff.replace(FENCE, '` ` `').rstrip()}\n{FENCE}"
    return part + (f"\n\n({omitted} more changed lines of `{path}` are not shown.)" if omitted else "")


def test_inputs_given_in_full(statement: str) -> set[str]:
    """The paths whose whole diff the statement gives (`test_input_part` without a count of
    lines not shown): a solver who applies them has those files as the tests do."""
    given = set(re.findall(rf"^`([^`\n]+)`:\n\n{FENCE}diff\n", statement, re.M))
    cut = set(re.findall(r"\(\d+ more changed lines of `([^`\n]+)` are not shown\.\)", statement))
    return given - cut


def untold_sentence(n: int, more: bool) -> str:
    """The count of failing tests a statement leaves out ("2 more failing tests are not spelled
    out here."): the writer's, and the reproduction check's when it drops a block."""
    return f"{n} {'more ' if more else ''}failing test{'s' * (n > 1)} {'are' if n > 1 else 'is'} not spelled out here."


# a test whose module cannot import a name the change adds, and whose own lines do not use it:
# it fails today only through that import (pyprobables' tests of a new `SimilarityError`)
_LACKED_IMPORT = re.compile(r"ImportError: cannot import name '(\w+)' from '([\w.]+)'")


def lacked_import(error: str) -> tuple[str, str] | None:
    """(module, name) when `error` says the module has no `name` to import; None otherwise."""
    m = _LACKED_IMPORT.search(error or "")
    return (m.group(2), m.group(1)) if m else None


def import_only(error: str, code: str) -> tuple[str, str] | None:
    """(module, name) when `error` says a module lacks `name` and the test's own `code` never
    names it; None otherwise (also without code: nothing shows the test needs no more)."""
    lacked = lacked_import(error)
    if lacked is None or not code or re.search(rf"\b{re.escape(lacked[1])}\b", code):
        return None
    return lacked


def import_only_sentence(n: int, module: str, name: str, more: bool) -> str:
    """The failing tests that need only the name to be importable, counted in one sentence."""
    tests = f"{n} {'more ' if more else ''}failing test{'s' * (n > 1)}"
    return (
        f"{tests} {'fail' if n > 1 else 'fails'} today only because `{name}` cannot be imported "
        f"from `{module}`; {'they need' if n > 1 else 'it needs'} nothing else."
    )


IMPORT_ONLY = re.compile(
    r"\b(\d+) (more )?failing tests? fails? today only because `(\w+)` cannot be imported from "
    r"`([\w.]+)`; (?:they need|it needs) nothing else\."
)


def with_import_only_count(text: str, module: str, name: str, n: int) -> str:
    """`text` with its count of the tests that need only `name` from `module` set to `n` (the
    sentence goes at 0)."""
    for m in IMPORT_ONLY.finditer(text):
        if (m.group(4), m.group(3)) == (module, name):
            sentence = import_only_sentence(n, module, name, bool(m.group(2))) if n else ""
            return text[: m.start()] + sentence + text[m.end() :]
    return text


_UNTOLD = re.compile(r"\b(\d+) (more )?failing tests? (?:is|are) not spelled out here\.")


def with_more_untold(text: str, n: int) -> str:
    """`text` saying that `n` more failing tests are not spelled out (their blocks were dropped):
    the count already there grows, else a sentence of its own goes before the closing
    "Expected behaviour" lines; a dropped case is never left unmentioned."""
    said = _UNTOLD.search(text)
    if said:
        counted = untold_sentence(int(said.group(1)) + n, bool(said.group(2)))
        return text[: said.start()] + counted + text[said.end() :]
    body = text.split("\n", 1)[-1]  # past the title: a block, or a call the prose states, is a case told
    sentence = untold_sentence(n, bool(FENCE in body or re.search(r"`[^`\n]*\([^`\n]*`", body)))
    closing = re.search(r"\n\s*\nExpected behaviour:", text)
    if closing:
        return text[: closing.start()] + f"\n\n{sentence}" + text[closing.start() :]
    return f"{text.rstrip()}\n\n{sentence}"
