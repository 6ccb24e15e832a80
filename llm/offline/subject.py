"""Commit subjects and bodies turned into user-facing symptoms, requests and sentences."""

from __future__ import annotations

import re

_CC_PREFIX = re.compile(
    r"^\s*(?:\[[^\]]*\]\s*)?(?:(?:fix|feat|feature|refactor|tests?|chore|perf|bug|bugfix|docs|style|build|ci)(?:\([^)]*\))?!?:\s*)?",
    re.I,
)
_VERB_KIND = {}
for _kind, _verbs in {
    "fix": "fix fixes fixed fixing correct corrects corrected resolve resolves resolved repair repairs",
    "handle": "handle handles handled",
    "prevent": "prevent prevents prevented avoid avoids avoided stop stops",
    "respect": "respect respects respected honor honors honour honours preserve preserves keep keeps retain retains",
    "add": "add adds added implement implements implemented introduce introduces introduced support supports "
    "allow allows enable enables provide provides",
    "refactor": "refactor refactors refactored restructure restructures extract extracts move moves rename renames "
    "split splits simplify simplifies reorganize reorganise",
    "change": "make makes update updates improve improves change changes use uses ensure ensures",
}.items():
    for _verb in _verbs.split():
        _VERB_KIND[_verb] = _kind


_PARTICIPLE = {
    "respect": "respected",
    "honor": "honored",
    "honour": "honoured",
    "preserve": "preserved",
    "keep": "kept",
    "retain": "retained",
}
_NEGATED = re.compile(r"^(?:do not|don't|dont|never|no longer)\s+(.+)$", re.I)
_SCOPE = re.compile(r"^[\w.]+:\s+(?=\w)")  # "jsonutils: fix ..." (a module named first)


_MERGE = re.compile(r"^\s*merge (?:pull request|branch|remote-tracking branch)\b.*$", re.I)
_MISC = re.compile(
    r"^\s*(?:misc(?:ellaneous)?|various|small|minor)\b(?:\s+(?:fix(?:es)?|changes?|updates?))?\s*[:,-]?\s*", re.I
)
_REF_PHRASE = re.compile(
    r"\s*\(?(?:\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|see(?: also)?|refs?|related to|follow-?up to|part of|"
    r"for|from|in|per|as in)\s+)?(?:\b(?:issue|pr|pull request|gh)\s*)?(?:#|\bgh-)\d+"
    r"(?:\s*(?:,|and)\s*(?:#|gh-)\d+)*\)?",
    re.I,
)
# "Email regex issue 140", "(see PR 12)": a number the solver cannot look up, written without '#'
_REF_WORDED = re.compile(
    r"\s*\(?(?:\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|see(?: also)?|refs?|for|from|in|per)\s+)?"
    r"\b(?:issue|pr|pull request|bug|ticket)\s+\d+\b\)?",
    re.I,
)
_URL = re.compile(r"\(?\s*(?:https?://|www\.)\S+\)?", re.I)


def clean_subject(subject: str) -> str:
    """A commit or pull-request title without what the solver cannot use: merge noise, issue
    and PR numbers ("(#123)", "fixes #12"), links, a "Misc fixes:" lead, stray punctuation."""
    s = " ".join(str(subject or "").split())
    if _MERGE.match(s):
        return ""
    s = _URL.sub("", s)
    s = _REF_WORDED.sub("", _REF_PHRASE.sub("", s))
    s = _MISC.sub("", s)
    s = re.sub(r"\s+([,.;:])", r"\1", s)
    s = re.sub(r"(?<![\w)\]])\(\s*\)", "", s)
    s = re.sub(r"(?:\s+(?:and|or|see|see also|in|for))+\s*$", "", s.strip(" .,;:-"), flags=re.I)
    return s.strip(" .,;:-")


def split_subject(subject: str) -> tuple[str, str, str]:
    """(verb kind, verb, rest) of a commit subject, without a conventional-commit prefix, a
    leading module scope, "Misc fixes:", links or issue and pull-request numbers
    (`clean_subject`). "Do not X" and "Never X" are kind "negated" with `rest` X."""
    s = _CC_PREFIX.sub("", clean_subject(subject)).strip()
    s = _SCOPE.sub("", s)
    s = re.sub(r"(?:\s*\(#\d+\))+\s*$", "", s).rstrip(". ")
    negated = _NEGATED.match(s)
    if negated:
        return "negated", "not", negated.group(1)
    m = re.match(r"(\w+)\s+(.+)", s)
    if m and m.group(1).lower() in _VERB_KIND:
        return _VERB_KIND[m.group(1).lower()], m.group(1).lower(), m.group(2)
    return "", "", s


def _symptom(kind: str, verb: str, rest: str, fallback: str) -> str:
    if not rest:
        return fallback
    if not kind and _IMPERATIVE.match(rest):  # "Force UTC on naive dates": the change to make, no symptom
        return fallback
    if kind == "handle":
        return f"{rest} is not handled correctly"
    if kind == "respect":
        base = verb[:-1] if verb.endswith("s") and verb[:-1] in _PARTICIPLE else verb
        return f"{rest} is not {_PARTICIPLE.get(base, base + 'ed')}"
    if kind == "negated":
        return f"the code should not {rest}, but it does"
    if kind == "add":
        if _MECHANISM.search(rest):  # "Add is check to equals check": how the fix works, no symptom
            return fallback
        return rest if rest.lower().startswith("missing") else f"{rest} is missing"
    if kind in ("change", "refactor"):
        return f"the code does not {verb} {rest}"
    return rest


# what an "Add ..." subject adds when it is a piece of the fix, not a feature a user asks for:
# "Add is check to equals check", "Add a guard for empty input", "Add fallback to utf-8"
_MECHANISM = re.compile(
    r"^(?:an? |the )?(?:[\w.`'-]+ ){0,2}(?:check|checks|guard|guards|condition|fallback|workaround|cache|lock|"
    r"special[- ]case|try/except|branch|short[- ]circuit)(?: (?:to|in|for|on|when|around)\b|$)",
    re.I,
)


def _request(kind: str, verb: str, rest: str, subject: str) -> str:
    if kind == "add":
        return "" if _MECHANISM.search(rest) else rest
    if kind == "refactor":
        return f"{verb} {rest}"
    if kind == "negated":
        return f"not to {rest}"
    return (f"{verb} {rest}" if verb else rest) or subject.strip().rstrip(".")


_VAGUE = re.compile(
    r"^(?:update|wip|tweak|cleanup|clean up|address|review|changes?|minor|misc|more|tests?|lint|"
    r"fixup|squash|merge|bump|try|oops|apply|get away)\b",
    re.I,
)


def is_vague(subject: str) -> bool:
    """A subject that says nothing about the behaviour: too short, a file name, or a chore
    ("Update foo.py", "address review", "wip"). A pull-request title then speaks instead."""
    s = _CC_PREFIX.sub("", str(subject or "")).strip()
    s = re.sub(r"(?:\s*\(#\d+\))+\s*$", "", s)
    words = s.split()
    if re.fullmatch(
        r"(?:(?:fix|fixes|fixed|close|closes|closed|resolve|resolves|resolved)\s+)?(?:issue\s+|bug\s+)?#\d+\W*", s, re.I
    ):
        return True  # only a reference: "Fixes issue #1427"
    chore = bool(_VAGUE.match(s)) and not _SAYS_WHEN.match(s)
    return len(words) < 3 or chore or any(re.search(r"\w\.(?:py|txt|md|rst|cfg|toml)\b", w) for w in words)


# a chore verb over a case it names ("clean up nested merge tokens when the parent key is new"): a
# behaviour, what it acts on and when
_SAYS_WHEN = re.compile(
    r"^(?:clean ?up|update|tweak|address)\b(?:\s+\S+){2,}?\s+(?:when|if|unless|whenever)\s+\S", re.I
)


_TRAILER = re.compile(r"^\s*(?:signed-off-by|co-authored-by|reviewed-by|fixes|closes|refs?)\b.*$", re.I | re.M)
# a sentence that reads as prose: it has a finite verb
_VERB = re.compile(
    r"\b(?:is|are|was|were|be|been|being|does|do|did|doesn'?t|don'?t|didn'?t|isn'?t|aren'?t|wasn'?t|has|have|had|"
    r"can|cannot|can'?t|could|should|would|will|won'?t|must|may|might|fails?|failed|raises?|raised|returns?|"
    r"returned|gives?|gave|produces?|produced|crash(?:es|ed)?|breaks?|broke|ignores?|ignored|shows?|showed|"
    r"prints?|printed|gets?|got|happens?|happened|causes?|caused|leads?|led|results?|works?|worked|needs?|expects?|"
    r"expected|accepts?|accepted|rejects?|rejected|loses?|lost|drops?|dropped|keeps?|kept|stops?|stopped|hangs?|"
    r"hung|loops?|looped|emits?|emitted|ends?|ended|contains?|contained|becomes?|became|runs?|ran|throws?|threw|"
    r"means?|meant|differs?|lands?|landed|collapses?|collapsed|overwrites?|overwritten)\b",
    re.I,
)
# the developer's voice about the change, not a user's about the behaviour
_DEVELOPER = re.compile(
    r"\b(?:this|the|that) (?:pr|commit|patch|change|diff|fix)\b|^(?:i|we)\b|\b(?:i|we)'(?:ve|ll|d)\b|"
    r"\badd(?:s|ed|ing)? (?:a |the |some |more |new )?(?:regression |unit )?tests?\b|\btests? (?:added|cases?)\b|"
    r"\bregression tests?\b|\brelease ?notes?\b|\bchangelog\b|\bdocumentation\b|\bpre-commit\b|\breno\b|"
    r"\bsquash|\brebase|\breview(?:er|ed)?\b|\bmaintainers?\b|\bbackport|\bcherry-pick|\bfixes\b|"
    r"\bsweep\b|\bhardening\b|\blong-standing\b|\bfollow-?up\b",
    re.I,
)
# how the fix works: only dropped when the prompt forbids leaks
_HOW = re.compile(
    r"\bfalls? back\b|\bby (?:using|calling|adding|checking|copying|passing|storing|wrapping|scaling|resolving)\b|"
    r"\bnow (?:uses?|calls?|checks?|copies|stores?|passes|wraps|scales|resolves|re-?raises|yields|delegates)\b|"
    r"\bswitch(?:es|ed)? to\b|\brefactor|\brenam|\bhelper\b|\bwhile loop\b|\brecursi|\bimplementation\b|"
    r"\binternal(?:ly)?\b|\bre-?raises? the\b|\bone-shot\b|\bthe (?:wraps|iterator|code) path\b|\bnow\b|"
    r"\bbecause\b|\bthis happens\b|\bis caused by\b|\binstead\b|\bso that\b|\bdue to\b|\bthe (?:cause|reason) is\b|"
    r"\b(?:solution|fix|workaround|approach|remedy|idea) (?:here )?(?:is|was) to\b|\bcarry on\b|"
    # the change's scope and its own account: "... is fixed", "keeps raising X as before", "are unaffected"
    r"\b(?:is|are|was|were|has been|have been) (?:now |also )?(?:fixed|corrected|amended|revised|adjusted)\b|"
    r"\bas before\b|\bunaffected\b|\b(?:path|behaviou?r|cases?|code|output) (?:is|are|stays?|remains?) unchanged\b|"
    r"\b(?:is|are) preferred\b|\ba second pass\b|\bthe corrected\b|^this is (?:now )?applied\b|"
    r"\bshould be (?:fine|enough|sufficient|ok(?:ay)?)\b|"  # the fix proposed: "so a normal dict should be fine"
    # what the code should do, prescribed: "The reload only needs to happen once, on the top-level key"
    r"\bonly (?:needs?|has|have) to\b|\b(?:should|must|need to|needs to) only\b|\bneeds? to happen\b",
    re.I,
)
# a commit-log line in the imperative ("Add ...", "Guard against ..."): a change, not a symptom
_IMPERATIVE = re.compile(
    r"^(?:add|use|make|move|guard|fall|return|copy|raise|call|check|handle|preserve|respect|ensure|avoid|prevent|calculate|"
    r"set|pass|store|wrap|replace|change|update|remove|drop|introduce|implement|support|allow|extend|convert|"
    r"normali[sz]e|scale|resolve|cope|validate|fix|bump|clean|simplify|refactor|rename|document|test|improve|"
    r"reraise|re-raise|skip|cache|expose|restore|reset|apply|catch|propagate|forward|delegate|split|merge|stop|"
    r"seek|pad|keep|treat|let|teach|tighten|loosen|accept|reject|honou?r|emit|default|clamp|carry|consume|"
    r"compute|round|limit|cap|trim|strip|escape|unescape|encode|decode|sort|filter|ignore|include|exclude|"
    r"reuse|track|record|count|compare|match|map|assign|initiali[sz]e|coerce|cast|build|create|generate|"
    r"register|load|save|read|write|close|lock|release|retry|wait|defer|shift|align|unwrap|flatten|join|quote|"
    r"unquote|lower|insert|append|prepend|consult|look|query|fetch|inherit|override|feed|parse|guard|force|enforce|"
    r"disallow|permit|mark|tolerate|require|warn|expand|reduce|increase|decrease|rewrite|recompute|reorder|relax|"
    r"widen|narrow|truncate|coalesce|dedupe|deduplicate|collapse|run|execute|perform|spawn|offload|schedule|"
    r"dispatch|recurse|descend|short-circuit|print|output|echo|show|display|log|inject|mirror)\b",
    re.I,
)
# a name only code has: a private or snake_case identifier, an attribute of self, a dotted call path
# (and `*args` / `**kwargs`, never **bold**)
_CODE_NAME = re.compile(r"\b(?:self\.\w+|_\w+|[a-z]+_[a-z_]+|\w+\.\w+\(\))|(?<![\w*])\*{1,2}[a-z_]\w*\b(?!\*)")
_SCOPED = re.compile(r"^[\w.]+(?:\s*/\s*[\w.]+)*\s*:\s")  # "BaseRetrying.__iter__: if not enabled, ..."


# a sentence that opens by pointing back ("In addition, ...") means nothing without the one before it
_LEANS_BACK = re.compile(
    r"^(?:in addition|additionally|also|furthermore|moreover|however|but|so|thus|therefore|hence|besides"
    r"|likewise|similarly|otherwise|instead|as a result|on the other hand|that said|still|in that case"
    r"|in this case|for that reason|because of (?:this|that))\b",
    re.I,
)


def leans_back(sentence: str) -> bool:
    """The sentence opens with a connective that refers to the sentence before it."""
    return bool(_LEANS_BACK.match(sentence.strip()))


def without_orphans(kept: list[str], original: list[str]) -> list[str]:
    """`kept` (a selection of `original`, in order) without a sentence that leans back on one
    that is not kept right before it: quoted alone, it refers to nothing."""
    out: list[str] = []
    for sentence in kept:
        at = original.index(sentence) if sentence in original else -1
        if leans_back(sentence) and not (out and at > 0 and original[at - 1] == out[-1]):
            continue
        out.append(sentence)
    return out


# "This makes sure that ...": the change, said of itself (never "This happens when ...", a symptom)
_THIS_CHANGE = r"this (?:commit|pr|patch|change|fix|makes|ensures|prevents|avoids|fixes|allows|adds|removes|lets|way)\b"


# a commit the solver cannot look up (werkzeug: "This adjusts b1916c0c083e... by ensuring ...")
_COMMIT_SHA = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")


def body_sentences(body: str, no_leak: bool, skip: tuple[str, ...] = (), keep_changes: bool = False) -> list[str]:
    """User-facing sentences from a commit or pull-request body: trailers, fences, HTML
    comments, the bullet lists of squashed commit subjects, commit-log lines in the imperative,
    fragments without a verb, the developer's voice, sentences naming files, links, issue and PR
    numbers, repeats (of each other and of the texts in `skip`) and, when asked (`no_leak`),
    code and accounts of how the fix works are dropped. `keep_changes` keeps imperative lines
    (a vague subject's replacement may be one)."""
    text = _TRAILER.sub("", str(body or "").replace("\r\n", "\n").replace("\r", "\n"))  # a web editor's CRLF
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    squashed = re.findall(r"(?:\A|\n\n)\* [^\n]*(?=\n\n|\n?\Z)", text)
    if len(squashed) >= 2:  # a squash merge's body: the subjects of the pull request's commits, a log
        text = re.sub(r"(?:\A|(?<=\n\n))\* [^\n]*(?=\n\n|\n?\Z)", " ", text)
    text = re.sub(r"^\s*[-*]\s+", "\n\n", text, flags=re.M)  # every bullet is a sentence of its own
    seen = {_norm(t) for t in skip}
    out = []
    previous_kept = False  # whether the sentence before this one is quoted
    for raw in re.split(r"(?<!e\.g\.)(?<!i\.e\.)(?<=[.!?])\s+|\n\s*\n|^#+\s.*$", text, flags=re.M):
        if not (raw or "").strip():
            continue
        s = " ".join((raw or "").split())
        leaning, previous_kept = leans_back(s) and not previous_kept, False
        if leaning:
            continue  # it points back to a sentence that is not quoted
        if re.search(r"https?://|www\.", s):
            continue  # a link the solver cannot follow
        s = _REF_PHRASE.sub("", s).strip()
        s = re.sub(r"\s+([,.;:!?])", r"\1", s)
        if (
            len(s.split()) < 3
            or is_vague(s)
            or _norm(s) in seen
            or s.startswith(("#", "["))
            or s.endswith(":")
            or re.search(r"#\d|\b(?:issue|pr|pull request)\s+\d", s, re.I)
            or _COMMIT_SHA.search(s)
        ):
            continue  # headings, bot lines ("[pre-commit.ci] ..."), list intros, references
        seen.add(_norm(s))
        if no_leak and (re.search(r"`[^`]*`|[=(){}\[\]]", s) or _CODE_NAME.search(s)):
            continue  # code in prose can give the fix away
        if no_leak and any(
            _IMPERATIVE.match(clause.strip()) for clause in [*re.split(r"[;:]", s)[1:], _main_clause(s)]
        ):
            continue  # "...; carry it through", "Once it exceeds the cap, return the cap": the change to make
        if no_leak and tells_how(s):
            continue  # how the fix works ("Rejecting a non-finite duration lets it fall through ...")
        if no_leak and len(s.split()) > _SYMPTOM_WORDS:
            continue  # an explanation of the code, not a symptom a user reports
        if _DEVELOPER.search(s) or _SCOPED.match(s) or re.match(_THIS_CHANGE, s, re.I):
            continue  # developer voice, not a symptom
        if not keep_changes and (_IMPERATIVE.match(s) or split_subject(s)[0] == "fix"):
            continue  # a commit-log line says what changed, not what goes wrong
        if not keep_changes and (len(s.split()) < 5 or not _VERB.search(s)):
            continue  # a fragment
        if re.search(r"\b(?:by|in|with|of|to|from|see|and|for|since)\W*$", s, re.I):
            continue  # a sentence whose reference was cut ("broken by #12")
        if keep_changes and split_subject(s)[0] == "fix":
            s = _capitalize_first(split_subject(s)[2])
        out.append(s if s.endswith((".", "!", "?")) else s + ".")
        previous_kept = True
    return out


def tells_how(sentence: str) -> bool:
    """The sentence gives an account of how the fix works (or how the change is done)."""
    words = sentence.split()
    return bool(_HOW.search(sentence)) or (bool(words) and _changing(words[0]))


_SYMPTOM_WORDS = 50  # a body sentence longer than this explains the code (mako's 70-word accounts)


def _changing(word: str) -> bool:
    """A gerund of a change as a sentence's subject ("Rejecting ...", "Replacing the hook ..."):
    the sentence tells what the fix does."""
    word = word.lower().strip(",")
    if not word.endswith("ing") or len(word) < 6:
        return False
    stem = word[:-3]
    stems = (stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else stem)
    return any(_IMPERATIVE.fullmatch(s) for s in stems)


_LEADING_CLAUSE = re.compile(r"^(?:once|when|whenever|if|after|before|unless|while|where)\b[^,;]{1,160},\s*", re.I)


# an adverb before the verb of a commit-log line ("Only handle the punctuation when ...")
_LEADING_ADVERB = re.compile(
    r"^(?:only|always|never|just|also|now|instead|simply|then|first|still|additionally|explicitly|properly|"
    r"correctly|consistently|lazily|eagerly)\b,?\s+",
    re.I,
)


def _main_clause(sentence: str) -> str:
    """The sentence after a leading subordinate clause ("Once X exceeds Y, return ..." -> "return ...")
    or a leading adverb ("Only handle ..." -> "handle ..."), else ""."""
    lead = _LEADING_CLAUSE.match(sentence) or _LEADING_ADVERB.match(sentence)
    return sentence[lead.end() :] if lead else ""


def _capitalize_first(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _norm(text: str) -> str:
    text = re.sub(r"(?:\s*\(#\d+\))+\s*$", "", _CC_PREFIX.sub("", text).strip())
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()
