"""Which sentences of a commit or pull-request body a statement may carry: symptoms, never the fix."""

from llm.offline import body_sentences
from llm.offline.subject import clean_subject, without_orphans

# sentences of real fix commits' bodies (croniter, mistune) that blind raters called leaks
HOW_THE_FIX_WORKS = [
    "Clamp the offset to the declared range and emit it as a single value when the step cannot reach a second one.",
    "self.tzinfo is already resolved before _expand runs; carry it through.",
    "The bare-destination branch in parse_link_href already consumes the next char, so the machinery is in place.",
    "Consume the escape as a unit like the sibling branch does; an unescaped bracket still terminates as before.",
    # asgiref 95d2430a, rated a leak on check set 13
    "Run executor shutdown in separate thread to avoid blocking the event loop.",
    # tablib f7e3f765, rated a leak on check set 15
    "The solution is to try to access the attribute, but carry on if it can't be found.",
    # accounts of the change in unseen libraries' bodies (filelock, mako, tenacity, attrs)
    "Rejecting a non-finite duration lets such a marker fall through to the malformed path and self-heal.",
    "Replacing the display hook is preferred to recording the warnings and raising them a second time.",
    "The message is amended to say that the position given is where the unterminated construct begins.",
    "A bare TryAgain raised without an active exception keeps reraising TryAgain as before.",
    "A second pass after the transformer handles any new fields the transformer may have added.",
    "Constructs whose code occupies a single line already reported the correct line and are unaffected.",
    "This is applied both to templates compiled in memory and to those compiled to a module file.",
    # prompt-toolkit 0b4f04e8, rated a leak on check set 16
    "This is not a global anymore, so a normal dict should be fine.",
    # dynaconf be353f73, rated a leak on check set 19
    "Recurse into nested dicts even when the current level carries no merge token, so every occurrence is handled.",
    # dynaconf 0e26bd6d, a design prescription quoted on check set 19
    "The fresh reload only needs to happen once, on the real top-level key.",
    # plumbum 0b132b66, rated a leak on check set 23
    "Print the return code on its own line with a leading newline, and strip that one added newline back off.",
    "Print the marker on its own line and strip the one injected newline, mirroring the stdout fix.",
    "The cache should only be consulted for plain keys.",
    "The offset between the two is not the same for every construct, so it is computed rather than assumed: the code"
    " of a block usually begins on the line after the tag, but may begin on the tag's own line, so the parser counts"
    " the lines it strips from the front of the code, while the fragment accounts for the line it places before.",
]
SYMPTOMS = [
    "Hour, day-of-month, month and day-of-week were all affected, and at a date boundary the day could be out.",
    "Divisors that fit their range keep their existing hashes, so no schedule that was already correct moves.",
    "Sheets saved by LibreOffice can contain child nodes that are not rows, and must not count as the header row.",
    "Nothing changes when reading a file that was written without a header.",
]


def test_a_body_sentence_that_says_how_the_fix_works_is_left_out():
    kept = body_sentences("\n\n".join(HOW_THE_FIX_WORKS + SYMPTOMS), no_leak=True)
    assert kept == SYMPTOMS


def test_without_no_leak_a_developer_body_keeps_its_code_names():
    # the vague-subject path (keep_changes) reads bodies with no_leak off: it may keep a change line
    kept = body_sentences(HOW_THE_FIX_WORKS[0], no_leak=False, keep_changes=True)
    assert kept == [HOW_THE_FIX_WORKS[0]]


def test_a_squash_merges_list_of_commit_subjects_is_a_log_not_a_symptom():
    """boltons: a squash merge's body ("* quick fix for py27 ci\n\n* caching doesn't work oob in
    containers, another 2.7 ci fix") put a commit subject into the statement as a sentence."""
    squash = (
        "* test and fix\n\n* quick fix for py27 ci\n\n* caching doesn't work oob in containers, another ci fix\n\n"
        "Co-authored-by: A <a@example.com>"
    )
    assert body_sentences(squash, no_leak=True) == []
    # pyee 349f91b0: a body written with CRLF line ends ("action to run type checks." was quoted)
    crlf = "* Add class decorator API\r\n\r\n* action to run type checks\r\n\r\n* MOST of the library is type-checking"
    assert body_sentences(crlf, no_leak=True) == []
    described = "Overwriting a key keeps the old value in the cache.\n\n* it also happens with every cache type"
    assert len(body_sentences(described, no_leak=True)) == 2  # one bullet of a description stays


def test_star_args_in_a_body_sentence_are_code_and_bold_text_is_not():
    body = "Wrappers that read *args for defaulted params must read **kwargs instead.\n\nThe output is **very** wrong."
    assert body_sentences(body, no_leak=True) == ["The output is **very** wrong."]


def test_a_body_sentence_giving_the_cause_or_what_the_fix_does_is_left_out():
    causes = [
        "The rendered table is one column too wide due to the padding being counted twice.",
        "Widths are measured on the visible text instead, which keeps colour codes out.",
        "Each row is padded once so that the borders line up again.",
    ]
    symptom = "A table with coloured cells is one column too wide."
    assert body_sentences("\n\n".join([*causes, symptom]), no_leak=True) == [symptom]


def test_a_sentence_that_leans_on_a_dropped_one_is_not_quoted_alone():
    """ "In addition, ..." after a sentence in the developer's voice (dropped) would be quoted
    with nothing to add to; after a kept sentence it stays."""
    leaning = "In addition, the cache backends break when they read old values."
    after_dropped = f"I realise we should think twice before using pickle here! {leaning}"
    assert leaning not in body_sentences(after_dropped, no_leak=True)
    after_kept = f"Unpickling old values breaks for every attribute. {leaning}"
    assert body_sentences(after_kept, no_leak=True)[-1] == leaning


def test_a_leaning_sentence_keeps_its_predecessor_or_goes():
    original = ["Old pickles fail to load.", "Also, new ones load fine.", "However, the size grows."]
    assert without_orphans(original, original) == original
    assert without_orphans(original[1:], original) == []  # each leans on one that is not kept
    assert without_orphans([original[0], original[2]], original) == [original[0]]


def test_a_subject_loses_issue_numbers_written_with_or_without_a_hash():
    assert clean_subject("Email regex issue 140") == "Email regex"
    assert clean_subject("Handle empty input (see PR 12)") == "Handle empty input"
    assert clean_subject("Fix parsing of dates, fixes #31") == "Fix parsing of dates"
    assert clean_subject("Support 2 issue types") == "Support 2 issue types"  # no number after the word


def test_an_imperative_after_a_leading_clause_is_the_fix_and_left_out():
    body = (
        "Once an exponential wait exceeds its configured maximum, calculate the threshold logarithmically "
        "and return the cap without constructing an ever larger integer power.\n\n"
        "When the wait exceeds the maximum, the call hangs for minutes and runs out of memory."
    )
    kept = body_sentences(body, no_leak=True)
    assert kept == ["When the wait exceeds the maximum, the call hangs for minutes and runs out of memory."]


def test_an_imperative_after_a_leading_adverb_is_the_fix_and_left_out():
    """sql-metadata 1c20ba17 (rated a leak on check set 24): "Only handle the punctuation when we
    already have the LIMIT keyword parsed" said what the fix does."""
    body = (
        "Only handle the punctuation when we already have the LIMIT keyword parsed.\n\n"
        "Only the first value of the list is returned when a query has an IN condition."
    )
    kept = body_sentences(body, no_leak=True)
    assert kept == ["Only the first value of the list is returned when a query has an IN condition."]


def test_an_added_check_or_guard_is_how_the_fix_works_not_a_title():
    """jsonschema: "Add is check to equals check, enabling support for nan" became the title
    "Is check to equals check ... is missing", which a rater read as the fix; a feature the
    subject adds ("as_kwarg argument") still names what is wanted."""
    from llm.offline.subject import _request, _symptom, split_subject

    for subject in ("Add is check to equals check, enabling support for nan", "Add a guard for empty input"):
        kind, verb, rest = split_subject(subject)
        assert _symptom(kind, verb, rest, "the fallback") == "the fallback"
        assert _request(kind, verb, rest, subject) == ""
    kind, verb, rest = split_subject("Added as_kwarg argument")
    assert _symptom(kind, verb, rest, "x") == "as_kwarg argument is missing"
    assert _request(kind, verb, rest, "Added as_kwarg argument") == "as_kwarg argument"


def test_a_sentence_where_the_change_speaks_of_itself_is_left_out():
    """autoflake eecb1cc8's body opens "This makes sure that we don't break multiprocessing.":
    quoted after a symptom's opening, the raters read it as garbled."""
    body = "This makes sure that we don't break multiprocessing.\n\nThe output is printed twice for a single item."
    assert body_sentences(body, no_leak=True) == ["The output is printed twice for a single item."]


def test_a_chore_verb_over_a_case_it_names_is_a_subject_that_tells():
    """dynaconf: "fix: clean up nested dynaconf_merge tokens when parent key is new" read as a chore,
    so the body's first sentence, an account of the code ("`handle_metavalues` returned without
    recursing"), became the title and was rated a leak."""
    from llm.offline.subject import is_vague

    assert not is_vague("fix: clean up nested dynaconf_merge tokens when parent key is new (#1435)")
    assert is_vague("Clean up code") and is_vague("Update README with examples") and is_vague("cleanup tests")


def test_a_sentence_naming_a_commit_by_its_sha_is_dropped():
    """werkzeug 1049dd6b's statement opened with "This adjusts b1916c0c083e0be1c9d887ee2f3d696922bfc5c1
    by ensuring CR ... are not ignored": a commit the solver cannot look up."""
    body = (
        "This adjusts b1916c0c083e0be1c9d887ee2f3d696922bfc5c1 by ensuring trailing carriage returns are kept.\n\n"
        "Uploads that end in a carriage return lose their last byte."
    )
    kept = body_sentences(body, no_leak=False)
    assert kept == ["Uploads that end in a carriage return lose their last byte."], kept
    assert body_sentences("The decoder dropped 2 bytes of the cafe data.", no_leak=False)  # words, not a sha
