"""Does a problem statement give the gold fix away? The one home of the leak check, used by
the offline judge and writer and by fitness's semantic layer.

A statement leaks when it shows what the fix *changes*, not what the code should *do*:

* ``verbatim`` -- a non-trivial added line of the gold patch appears (token for token);
* ``expression`` -- a run of >= 5 code tokens of an added line with an operator or bracket
  appears, and that run is new (not in the removed/context lines or hunk headers, the test patch or the
  ``def``/``class`` line of a new function the tests call: that signature is the task's spec);
  string literals count as one token, and lines the change only moves are ignored;
* ``code_block`` -- a line of a code block or inline code span is close to an added line
  (similarity >= 0.8 on normalised text) and closer to it than to any removed line;
* ``prescription`` -- a sentence tells how to change the code ("should call/use", "the fix
  is", "add a check", "instead of", ...) and refers to the change: a new expression of the
  added lines (>= 4 tokens) or an identifier the fix introduces (also as a word stem: ``ceil`` in
  "ceiling division"); or it rewrites old code into new ("replace X with Y", "change X to")
  and quotes an expression of the removed lines;
* ``explanation`` -- a sentence says why the bug happens or what the fix does ("because", "now",
  "so that", "due to", "is caused by") and names an identifier the fix introduces or a new
  expression of its added lines: a commit body's account of the cause is the fix in prose.

* ``pinned_text`` -- two or more non-trivial added lines appear token for token both in the
  tests' added lines and in the statement: the tests require the fix's own text (a SQL
  template, generated source), so stating their requirement gives the fix away.

Mentioning the touched function, quoting the failing tests' calls and expected values, the
buggy code, or the signature of an API the change adds is not a leak; nor are the fix's
comments and doctest examples (documentation, read as prose).
"""

from __future__ import annotations

import ast
import builtins
import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .patch_lines import code_patch, patch_added_lines, patch_removed_lines

TOKEN = re.compile(r"""[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?|==|!=|<=|>=|//|\*\*|->|[^\sA-Za-z0-9_]""")
_STRING = re.compile(r"""(?:[rbfu]{1,2})?(?:'[^'\n]*'|"[^"\n]*")""", re.I)
_OPERATOR = re.compile(r"^(?:[()\[\]{}.=+\-*/%<>!&|^~:,]|==|!=|<=|>=|//|\*\*)$")
_PRESCRIPTION = re.compile(
    r"\breplac\w*\b|\bchang\w*\b.*\b(?:to|into)\b|\bswap\w*\b|\bswitch\w*\b.*\bto\b|\binstead of\b|\binstead\b|"
    r"\brather than\b|\bshould (?:be )?(?:use|call|compute|check|verify|guard|wrap|set|pass|include|store|look|"
    r"delegate|normali[sz]e|encode|recurse|become|be built|be computed|be calculated|run|loop)\w*\b|"
    r"\b(?:must|needs? to|has to) (?:use|call|check|verify|open|set|pass|include|store|run|loop|be built)\b|"
    r"\b(?:the )?fix (?:is|would be|should be|could be)\b|\bfix(?:ed)? (?:it )?by\b|\bby (?:using|calling|adding|"
    r"replacing|changing|wrapping|checking|passing|normali[sz]ing)\b|^(?:add|insert|wrap|guard|use|call|pass|"
    r"introduce|normali[sz]e|apply|set|check|verify)\b|\b(?:add|insert|introduce) (?:a|an|the)\b|"
    r"\bpatch:|\bsuggest\w*|\bmissing line\b|\bone-liner\b|\bcan be\b.*\bwith\b",
    re.I,
)
# why the bug happens or what the fix does: with a name only the fix has, the fix in prose
_EXPLANATION = re.compile(
    r"\bbecause\b|(?<!right )\bnow\b|\bso that\b|\bdue to\b|\b(?:is|was|are|were) caused by\b|\bthis happen(?:s|ed)\b|"
    r"\bthe (?:cause|reason) (?:is|was)\b",
    re.I,
)
# Rewriting the old code into the new: only these make a quote of the *removed* code a leak
# ("returns 2 instead of 3" describes a symptom; "replace X with Y" prescribes the change).
_REWRITE = re.compile(
    r"\breplac(?:e|ed|ing)\b.*\b(?:with|by)\b|\bchang(?:e|ed|ing)\b.*\b(?:to|into)\b|"
    r"\bswap\b|\bswitch\b.*\bto\b|\bshould become\b|\b(?:be|is) replaced\b|"
    r"\binstead of (?:assigning|calling|using|computing|doing|returning)\b",
    re.I,
)
_STOP = set(
    """self cls none true false return def class if else elif for while in is not and or lambda import from
with as try except finally raise pass break continue yield async await print len str int float list dict set
tuple range isinstance value values key keys item items result text data name path args kwargs func""".split()
)


def _tokens(text: str) -> list[str]:
    return TOKEN.findall(_STRING.sub(" STR ", text))


def _joined(tokens: Sequence[str]) -> str:
    return " " + " ".join(tokens) + " "


def _normalize(line: str) -> str:
    return re.sub(r"\s+", "", line.strip())


def _nontrivial(line: str) -> bool:
    s = " ".join(line.split())
    return len(s) >= 8 and any(c.isalnum() for c in s) and not s.startswith("#")


def patch_context_lines(patch: str) -> list[str]:
    return [ln[1:] for ln in patch.splitlines() if ln.startswith(" ")]


def leaked_share(statement: str, added_lines: Sequence[str]) -> float:
    """Share of the non-trivial added lines that appear verbatim (token for token) in the statement."""
    lines = {" ".join(TOKEN.findall(ln)) for ln in added_lines if _nontrivial(ln)}
    if not lines:
        return 0.0
    flat = _joined(TOKEN.findall(statement))
    return sum(1 for ln in lines if f" {ln} " in flat) / len(lines)


@dataclass(frozen=True)
class LeakReport:
    """How much of the fix a statement gives away: ``score`` in 0..1 and what showed it."""

    score: float
    verbatim_share: float
    kinds: tuple[str, ...]
    evidence: str

    def leaks(self, threshold: float = 0.5) -> bool:
        """A leak: score at the threshold, or one long added line quoted verbatim."""
        return self.score >= threshold or ("verbatim" in self.kinds and len(self.evidence) >= 30)


_FILE_PATH = re.compile(r"(?<![\w./-])[\w.-]+(?:/[\w.-]+)+\.[A-Za-z]\w{0,4}(?![\w/(])")


def _code_fragments(statement: str) -> list[str]:
    blocks = re.findall(r"```[^\n]*\n(.*?)(?:```|$)", statement, flags=re.S)
    lines = [ln for b in blocks for ln in b.splitlines()]
    lines += [ln for ln in statement.splitlines() if ln.startswith(("    ", "\t"))]
    lines += re.findall(r"`([^`\n]{8,})`", re.sub(r"```.*?(?:```|$)", " ", statement, flags=re.S))
    return [ln.strip() for ln in lines if len(ln.strip()) >= 8]


def _new_identifiers(added: Sequence[str], known: str, api: set[str]) -> set[str]:
    found = set()
    for line in added:
        for tok in TOKEN.findall(re.sub(r"#.*$", "", _STRING.sub(" ", line))):  # a trailing comment is prose
            if (
                (tok[0].isalpha() or tok[0] == "_")
                and len(tok) >= 4
                and tok.lower() not in _STOP
                and f" {tok} " not in known
                and tok not in api
            ):
                found.add(tok)
    return found


def _mentions_identifier(sentence: str, ident: str) -> bool:
    if re.search(rf"(?<![\w]){re.escape(ident)}(?![\w])", sentence):
        return True
    stem = ident.strip("_").lower()
    # a word stem in the prose only: a quoted name (`writelines`) is no mention of `write`
    words = re.findall(r"[a-z]+", re.sub(r"`[^`]*`", " ", sentence).lower())
    if "_" in stem:  # snake_case: its words in order, e.g. "normalize header"
        parts = [p for p in stem.split("_") if p]
        return any(words[i : i + len(parts)] == parts for i in range(len(words)))
    return len(stem) >= 4 and any(w.startswith(stem) for w in words)


def _doctest_lines(patch: str) -> set[int]:
    """Indices (among the patch's non-blank added lines) of doctest lines: `>>> ` / `... `
    prompts and the output lines after them, up to a blank line or the docstring's end. The
    context lines count for where a block ends (an unchanged closing quote ends it)."""
    found: set[int] = set()
    inside, index = False, -1
    for raw in patch.splitlines():
        if raw.startswith(("+++", "---")) or raw.startswith("-"):
            continue
        if not raw.startswith(("+", " ")):  # a hunk or file header
            inside = False
            continue
        added, text = raw.startswith("+"), raw[1:].strip()
        if added and text:
            index += 1
        if text.startswith((">>> ", "... ")) or text in (">>>", "..."):
            inside = True
        elif not (inside and text and not text.startswith(QUOTES)):
            inside = False
            continue
        if added and text:
            found.add(index)
    return found


QUOTES = ('"' * 3, "'" * 3)


def _docstring_lines(patch: str) -> set[int]:
    """Indices (among the patch's non-blank added lines) of docstring lines: a triple-quoted
    string that is a statement of its own (its line starts with the quotes) right under a
    `def`/`class` header or at the top of a hunk, to its closing quotes. One that opens its
    line under a call's open parenthesis or an `=` is a value (an SQL template passed to
    `dedent(`): code the tests may require. A hunk starts outside any string."""
    found: set[int] = set()
    state, index = "", -1  # "doc": in a docstring; "str": in another triple-quoted string
    previous = ""  # the last non-blank line of the new file's side, within the hunk
    lines = patch.splitlines()
    for at, raw in enumerate(lines):
        if raw.startswith(("+++", "---")) or raw.startswith("-"):
            continue
        if not raw.startswith(("+", " ")):
            state, previous = ("doc" if _starts_in_docstring(lines[at + 1 :]) else ""), ""
            continue
        added, text = raw.startswith("+"), raw[1:].strip()
        if added and text:
            index += 1
        opens = text.lstrip("rRuUbB").startswith(QUOTES)
        under_header = not previous or previous.endswith(":")
        odd = (text.count(QUOTES[0]) + text.count(QUOTES[1])) % 2 == 1
        doc = state == "doc" or (not state and opens and under_header)
        if odd:
            state = "" if state else ("doc" if opens and under_header else "str")
        if doc and added and text:
            found.add(index)
        previous = text or previous
    return found


def _starts_in_docstring(hunk: list[str]) -> bool:
    """The hunk (its lines after the header) starts inside a docstring that opened above it
    (confuse 01b11c26: a `Filename` docstring's middle, "Paths from sources without a file are
    relative to ...", read as code and its words as the fix's names): its first line holding an
    odd number of triple quotes closes a string, and each line before it reads as prose."""
    before: list[str] = []
    for raw in hunk:
        if not raw.startswith(("+", " ", "-")) or raw.startswith(("+++", "---")):
            return False
        text = raw[1:].strip()
        if raw.startswith("-") or not text:
            continue
        if (text.count(QUOTES[0]) + text.count(QUOTES[1])) % 2 == 1:
            closes = not text.lstrip("rRuUbB").startswith(QUOTES) or text in QUOTES
            return closes and bool(before) and all(map(_reads_as_prose, before))
        before.append(text)
    return False


def _reads_as_prose(line: str) -> bool:
    """Words and punctuation, four words at least, and no Python statement."""
    if not re.fullmatch(r"[\w\s,.;:'`()!?-]+", line) or len(re.findall(r"[A-Za-z]+", line)) < 4:
        return False
    try:
        ast.parse(line)
    except SyntaxError:
        return True
    return False


# a parameter declared on a line of its own (`requireInlineClassVarDocs: bool = False,`), wherever
# the hunk starts: when the tests use its name, the API's spec that the statement's interface
# states, not how the fix works
_PARAMETER_LINE = re.compile(
    r"^\s*\*{0,2}(\w+)\s*:\s*[^=]+?(?:\s*=\s*.+?)?,\s*$"
    r"|^\s*(\w+)\s*=\s*(?:None|True|False|-?\d[\w.]*|'[^']*'|\"[^\"]*\"),\s*$"
)


def _signature_lines(patch: str, called: set[str]) -> list[str]:
    """The added lines that make up a signature the tests call into: those of a new function or
    class whose name is among `called` (the tests' tokens), with its parameters over several lines
    (pydoclint's `index: int,` / `arg: Arg,`), and a parameter an existing signature gains that the
    tests pass by name (`style: str = 'numpy',`). The spec of the API, not its solution."""
    out: list[str] = []
    depth, new_def, new_class = 0, False, False
    for raw in patch.splitlines():
        if raw.startswith(("+++", "---", "@@")) or raw[:1] not in ("+", " "):
            depth = 0 if raw.startswith("@@") else depth
            continue
        added, ln = raw.startswith("+"), raw[1:]
        if not ln.startswith((" ", "\t")) and ln.strip():  # a top-level line: which class, if any, is new
            new_class = bool(added and (c := re.match(r"class\s+(\w+)", ln)) and c.group(1) in called)
        if depth > 0:
            parameter = re.match(r"\s*\*{0,2}(\w+)\s*[:=,)]", ln)
            if added and (new_def or (parameter and parameter.group(1) in called)):
                out.append(ln)
            depth += ln.count("(") - ln.count(")")
            continue
        m = re.match(r"\s*(?:async\s+)?(?:def|class)\s+(\w+)", ln)
        if m:
            # a new class's constructor is called by the class's name (`HasAttributes(expected=...)`)
            constructor = new_class and m.group(1) in ("__init__", "__new__")
            new_def = added and (m.group(1) in called or constructor)
            if new_def:
                out.append(ln)
            depth = max(ln.count("(") - ln.count(")"), 0)
    return out


def leak_report(statement: str, patch: str, test_patch: str = "", tests_code: Sequence[str] = ()) -> LeakReport:
    """What of the gold ``patch`` the ``statement`` reveals (see the module docstring). Only
    code counts: a statement may echo the fix's changelog or documentation prose.
    ``tests_code``: code the statement may quote from the tests' own files (the reproductions
    derived from them, with the helpers they call written in), known like the test patch: a
    helper's `assert state.elapsed == delay` resembles a fix line `t = state.elapsed`, yet it is
    the tests' code, which the fix never shows."""
    # a file's path is where, not how: a fix's comment naming the tests' fixture file
    # (`tests/fixtures/subscript_strikethrough.md`) is no code a statement naming it could leak
    statement = _FILE_PATH.sub(" ", str(statement or ""))
    patch = code_patch(patch)
    added = [ln for ln in patch_added_lines(patch) if ln.strip()]
    if not added or not statement.strip():
        return LeakReport(0.0, 0.0, (), "")
    test_tokens = set(_tokens("\n".join(patch_added_lines(test_patch))))
    # The signature of a new function the tests call is the task's spec, not its solution.
    test_words = set(re.findall(r"\w+", "\n".join(patch_added_lines(test_patch))))  # `**{'style': ...}` too
    api_lines = _signature_lines(patch, test_tokens) + [
        ln for ln in added if (m := _PARAMETER_LINE.match(ln)) and (m.group(1) or m.group(2)) in test_words
    ]
    api = {m for ln in api_lines for m in re.findall(r"(?:def|class)\s+(\w+)", ln)}
    removed_set = {_normalize(ln) for ln in patch_removed_lines(patch)}
    # the hunk headers name the enclosing definition as the buggy state has it (`def f(self, name):`)
    headers = [m.group(1) for m in re.finditer(r"^@@[^@]*@@ ?(.*)$", patch, re.M) if m.group(1).strip()]
    quoted_tests = [ln for code in tests_code for ln in str(code or "").splitlines()]
    known_lines = (
        patch_removed_lines(patch)
        + patch_context_lines(patch)
        + headers
        + patch_added_lines(test_patch)
        + api_lines
        + quoted_tests
    )
    known = _joined([t for ln in known_lines for t in _tokens(ln) + ["\n"]])
    # lines the change only moves (also among the removed lines) are not part of the fix, nor
    # are its comments: prose, which the prescription check reads as prose
    # a docstring and its examples are documentation: prose, like comments
    doctest = _doctest_lines(patch) | _docstring_lines(patch)
    body = [
        ln
        for i, ln in enumerate(added)
        if ln not in api_lines
        and _normalize(ln) not in removed_set
        and not ln.lstrip().startswith("#")
        and i not in doctest
    ]
    kinds: list[str] = []
    evidence = ""

    share = leaked_share(statement, body)
    flat_raw = _joined(TOKEN.findall(statement))
    verbatim = [ln.strip() for ln in body if _nontrivial(ln) and f" {' '.join(TOKEN.findall(ln))} " in flat_raw]
    if verbatim:
        kinds.append("verbatim")
        evidence = verbatim[0]

    flat = _joined(_tokens(statement))
    for line in body:
        toks = _tokens(line)
        hit = ""
        for size in range(len(toks), 4, -1):
            for i in range(len(toks) - size + 1):
                window = toks[i : i + size]
                text = _joined(window)
                if (
                    text in flat
                    and text not in known
                    and any(_OPERATOR.match(t) for t in window)
                    and sum(t[0].isalpha() or t[0] == "_" for t in window) >= 2
                ):
                    hit = " ".join(window)
                    break
            if hit:
                break
        if hit:
            kinds.append("expression")
            evidence = evidence or hit
            break

    removed = [_normalize(ln) for ln in patch_removed_lines(patch) if _nontrivial(ln)]
    # raw tokens as well: code inside an f-string of the buggy state is still the buggy state's
    known_raw = _joined([t for ln in known_lines for t in TOKEN.findall(ln) + ["\n"]])
    for fragment in _code_fragments(statement):
        if _joined(TOKEN.findall(fragment)) in known_raw:  # code the buggy state (or the tests) already has
            continue
        if hasattr(builtins, fragment):  # `AttributeError`, what the buggy state raises: no code of the fix
            continue
        frag = _normalize(fragment)
        for line in body:
            target = _normalize(line)
            if len(target) < 8:
                continue
            ratio = difflib.SequenceMatcher(None, frag, target).ratio()
            if ratio >= 0.8 and ratio > max(
                (difflib.SequenceMatcher(None, frag, r).ratio() for r in removed), default=0.0
            ):
                kinds.append("code_block")
                evidence = evidence or fragment
                break
        if "code_block" in kinds:
            break

    # a line that reads as prose (a docstring's middle the hunk does not show opening) names no code
    new_ids = _new_identifiers([ln for ln in body if not _reads_as_prose(ln.strip())], known, api)
    changed = [ln for ln in body + patch_removed_lines(patch) if _nontrivial(ln)]
    # a fenced block is code, judged by the rules above: a word of its lines (`.replace(` in a
    # test's own line) is no sentence telling how to change the code
    prose_lines = re.sub(r"```.*?(?:```|$)", "\n", statement, flags=re.S)
    for sentence in re.split(r"(?<=[.!?:])\s+|\n+", prose_lines):
        prose = re.sub(r"`[^`]*`", " ", sentence).strip()
        prescribes = bool(_PRESCRIPTION.search(prose))
        if not prescribes and not _EXPLANATION.search(prose):
            continue
        s_flat = _joined(_tokens(sentence))
        rewrite = bool(_REWRITE.search(prose))
        lines = changed if rewrite else [ln for ln in body if _nontrivial(ln)]
        expression = next(
            (
                " ".join(w)
                for ln in lines
                for w in _windows(_tokens(ln), 4)
                if _joined(w) in s_flat
                and (rewrite or _joined(w) not in known)
                and any(_OPERATOR.match(t) for t in w)
                and any(t[0].isalpha() for t in w)
            ),
            "",
        )
        ident = next((i for i in sorted(new_ids) if _mentions_identifier(sentence, i)), "")
        if expression or ident:
            kinds.append("prescription" if prescribes else "explanation")
            evidence = evidence or sentence.strip()
            break

    # the tests compare with text the fix adds (a SQL template, generated source): stating what
    # they require quotes the fix, however the statement is written
    test_raw = _joined(TOKEN.findall("\n".join(patch_added_lines(test_patch))))
    pinned = [
        ln.strip()
        for ln in body
        if _nontrivial(ln)
        and len(TOKEN.findall(ln)) >= 3
        and (raw := f" {' '.join(TOKEN.findall(ln))} ") in flat_raw
        and raw in test_raw
    ]
    if len(pinned) >= 2:
        kinds.append("pinned_text")
        evidence = evidence or pinned[0]

    strong = any(k in kinds for k in ("expression", "code_block", "prescription", "explanation", "pinned_text"))
    score = 1.0 if strong else share
    return LeakReport(round(score, 4), round(share, 4), tuple(dict.fromkeys(kinds)), evidence)


def quotes_fix_expression(text: str, added_lines: Sequence[str], min_tokens: int = 3) -> str:
    """A run of >= min_tokens code tokens of an added line, with an operator, that the text
    contains ('' if none): stricter than `leak_report`, for a writer keeping the fix secret."""
    flat = _joined(_tokens(text))
    for line in added_lines:
        if line.lstrip().startswith("#"):
            continue
        toks = _tokens(line)
        for size in range(len(toks), min_tokens - 1, -1):
            for window in _windows(toks, size):
                if any(_OPERATOR.match(t) and t not in ".," for t in window) and _joined(window) in flat:
                    return " ".join(window)
    return ""


def _windows(tokens: Sequence[str], size: int) -> list[list[str]]:
    return [list(tokens[i : i + size]) for i in range(len(tokens) - size + 1)]
