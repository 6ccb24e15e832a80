"""safetext: escaping, path and input validation, tokens (security + validation + text)."""
from __future__ import annotations

from corpus.repos import Append, RepoSpec, Replace, Step, Write, code, project_files

README = code('''
    # safetext

    Small, dependable helpers for handling untrusted text in web services: HTML escaping,
    link checks, path joining that cannot escape its folder, user name and e-mail checks,
    slugs, random tokens and size-limited reads of request bodies.

    Standard library only. Run the tests with `python -m pytest`.
    ''')

INIT = code('''
    """safetext: helpers for handling untrusted text."""
    from safetext.html import escape_html, is_safe_url
    from safetext.paths import UnsafePathError, safe_join, sanitize_filename
    from safetext.validate import is_valid_email, is_valid_username, slugify

    __all__ = ["UnsafePathError", "escape_html", "is_safe_url", "is_valid_email",
               "is_valid_username", "safe_join", "sanitize_filename", "slugify"]
    ''')

HTML = code('''
    """Escaping text for HTML and checking links supplied by users."""
    from __future__ import annotations

    _ESCAPES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"))
    _BLOCKED_PREFIXES = ("javascript:", "vbscript:", "data:")


    def escape_html(text: str) -> str:
        """Escape text for HTML element content and quoted attribute values."""
        for raw, entity in _ESCAPES:
            text = text.replace(raw, entity)
        return text


    def is_safe_url(url: str) -> bool:
        """False for links that would run script when followed (javascript:, vbscript:, data:)."""
        return not url.startswith(_BLOCKED_PREFIXES)
    ''')

PATHS = code(r'''
    """Joining untrusted path parts under a base folder, and cleaning file names."""
    from __future__ import annotations

    import os


    class UnsafePathError(ValueError):
        """Raised when a path would leave the folder it must stay in."""


    def safe_join(base: str, *parts: str) -> str:
        """Join `parts` onto `base`; raise UnsafePathError if the result lies outside `base`."""
        root = os.path.abspath(base)
        target = os.path.abspath(os.path.join(root, *parts))
        if not target.startswith(root):
            raise UnsafePathError(f"{os.path.join(*parts)!r} escapes {root!r}")
        return target


    def sanitize_filename(name: str) -> str:
        """A file name with path separators and control characters replaced by '_'."""
        cleaned = "".join("_" if ch in "/\\" or ord(ch) < 32 else ch for ch in name)
        cleaned = cleaned.strip(" .")
        return cleaned or "_"
    ''')

VALIDATE = code('''
    """Checks for user names and e-mail addresses, and URL slugs."""
    from __future__ import annotations

    import re
    import unicodedata

    _USERNAME = re.compile(r"[a-z0-9_]{3,32}")
    _SLUG_JUNK = re.compile(r"[^a-z0-9]+")


    def is_valid_username(name: str) -> bool:
        """3 to 32 characters: lower-case letters, digits and underscores."""
        return _USERNAME.match(name) is not None


    def is_valid_email(address: str) -> bool:
        """A light syntax check: a local part, '@' and a dotted domain, no spaces."""
        local, at, domain = address.partition("@")
        return bool(local and at and "." in domain and " " not in address)


    def slugify(text: str) -> str:
        """'Héllo, World!' -> 'hello-world'."""
        ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
        return _SLUG_JUNK.sub("-", ascii_text.lower()).strip("-")
    ''')

TOKENS = code('''
    """Random tokens for sessions and password resets, and comparing them safely."""
    from __future__ import annotations

    import hmac
    import random
    import string

    ALPHABET = string.ascii_letters + string.digits


    def generate_token(length: int = 32) -> str:
        """A random token of `length` letters and digits."""
        return "".join(random.choice(ALPHABET) for _ in range(length))


    def tokens_match(expected: str, given: str) -> bool:
        """Compare two tokens in constant time."""
        return hmac.compare_digest(expected.encode(), given.encode())
    ''')

LIMITS = code('''
    """Reading request bodies with a size limit."""
    from __future__ import annotations

    from typing import BinaryIO


    class PayloadTooLarge(ValueError):
        """Raised when a body is larger than the limit."""


    def read_limited(stream: BinaryIO, max_bytes: int) -> bytes:
        """The body in `stream`, refusing bodies larger than `max_bytes`."""
        data = stream.read()
        if len(data) > max_bytes:
            raise PayloadTooLarge(f"body exceeds the limit of {max_bytes} bytes")
        return data
    ''')

TEST_HTML = code('''
    from safetext.html import escape_html, is_safe_url


    def test_escape_html_special_characters():
        assert escape_html('<a href="x">&</a>') == "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"


    def test_escape_html_leaves_plain_text_alone():
        assert escape_html("plain text 123") == "plain text 123"


    def test_ordinary_links_are_safe():
        assert is_safe_url("https://example.com/a?b=c")
        assert is_safe_url("/relative/path")
        assert is_safe_url("mailto:someone@example.com")


    def test_script_links_are_unsafe():
        assert not is_safe_url("javascript:alert(1)")
        assert not is_safe_url("data:text/html,<script>alert(1)</script>")
    ''')

TEST_PATHS = code(r'''
    import pytest

    from safetext.paths import UnsafePathError, safe_join, sanitize_filename


    def test_safe_join_inside_the_base():
        assert safe_join("/srv/data", "reports", "2025.csv") == "/srv/data/reports/2025.csv"


    def test_safe_join_rejects_parent_traversal():
        with pytest.raises(UnsafePathError):
            safe_join("/srv/data", "../../etc/passwd")


    def test_safe_join_rejects_an_absolute_part():
        with pytest.raises(UnsafePathError):
            safe_join("/srv/data", "/etc/passwd")


    def test_sanitize_filename():
        assert sanitize_filename("../../etc/passwd") == "_.._etc_passwd"
        assert sanitize_filename("a\\b\x00.txt") == "a_b_.txt"
        assert sanitize_filename("...") == "_"
    ''')

TEST_VALIDATE = code('''
    from safetext.validate import is_valid_email, is_valid_username, slugify


    def test_usernames():
        assert is_valid_username("alice_01")
        assert not is_valid_username("al")
        assert not is_valid_username("Alice")


    def test_emails():
        assert is_valid_email("bob@example.com")
        assert not is_valid_email("bob")
        assert not is_valid_email("bob@localhost")
        assert not is_valid_email("bo b@example.com")


    def test_slugify():
        assert slugify("Héllo, World!") == "hello-world"
        assert slugify("  --Already-slugged--  ") == "already-slugged"
    ''')

TEST_TOKENS = code('''
    from safetext.tokens import ALPHABET, generate_token, tokens_match


    def test_token_length_and_alphabet():
        token = generate_token(40)
        assert len(token) == 40 and set(token) <= set(ALPHABET)


    def test_tokens_match():
        assert tokens_match("abc", "abc")
        assert not tokens_match("abc", "abd")
    ''')

TEST_LIMITS = code('''
    import io

    import pytest

    from safetext.limits import PayloadTooLarge, read_limited


    def test_small_body_is_returned():
        assert read_limited(io.BytesIO(b"hello"), 10) == b"hello"


    def test_body_at_the_limit_is_accepted():
        assert read_limited(io.BytesIO(b"x" * 10), 10) == b"x" * 10


    def test_large_body_is_refused():
        with pytest.raises(PayloadTooLarge):
            read_limited(io.BytesIO(b"x" * 11), 10)
    ''')

FILES = {
    **project_files("safetext", "Helpers for handling untrusted text.", README),
    "safetext/__init__.py": INIT,
    "safetext/html.py": HTML,
    "safetext/paths.py": PATHS,
    "safetext/validate.py": VALIDATE,
    "safetext/tokens.py": TOKENS,
    "safetext/limits.py": LIMITS,
    "tests/test_html.py": TEST_HTML,
    "tests/test_paths.py": TEST_PATHS,
    "tests/test_validate.py": TEST_VALIDATE,
    "tests/test_tokens.py": TEST_TOKENS,
    "tests/test_limits.py": TEST_LIMITS,
}

# Transliteration tables for the large commit: language code -> (language, table).
TRANSLIT = {
    "cs": ("Czech", {"č": "c", "ř": "r", "š": "s", "ž": "z", "ů": "u"}),
    "da": ("Danish", {"æ": "ae", "ø": "oe", "å": "aa"}),
    "de": ("German", {"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"}),
    "es": ("Spanish", {"ñ": "n", "á": "a", "é": "e", "í": "i", "ó": "o", "ú": "u"}),
    "fi": ("Finnish", {"ä": "a", "ö": "o", "å": "a"}),
    "fr": ("French", {"é": "e", "è": "e", "ê": "e", "à": "a", "ç": "c", "œ": "oe"}),
    "hr": ("Croatian", {"č": "c", "ć": "c", "đ": "dj", "š": "s", "ž": "z"}),
    "hu": ("Hungarian", {"á": "a", "é": "e", "ő": "o", "ű": "u", "ö": "o", "ü": "u"}),
    "is": ("Icelandic", {"þ": "th", "ð": "d", "æ": "ae", "ö": "o"}),
    "it": ("Italian", {"à": "a", "è": "e", "ì": "i", "ò": "o", "ù": "u"}),
    "nl": ("Dutch", {"ĳ": "ij", "ë": "e", "ï": "i"}),
    "no": ("Norwegian", {"æ": "ae", "ø": "o", "å": "aa"}),
    "pl": ("Polish", {"ą": "a", "ć": "c", "ę": "e", "ł": "l", "ń": "n", "ś": "s", "ź": "z", "ż": "z"}),
    "pt": ("Portuguese", {"ã": "a", "õ": "o", "ç": "c", "á": "a", "ê": "e"}),
    "ro": ("Romanian", {"ă": "a", "â": "a", "î": "i", "ș": "s", "ț": "t"}),
    "sv": ("Swedish", {"å": "a", "ä": "a", "ö": "o"}),
    "tr": ("Turkish", {"ç": "c", "ğ": "g", "ı": "i", "ö": "o", "ş": "s", "ü": "u"}),
}

LICENSE_HEADER = "# Copyright (c) 2025 The safetext authors.\n# SPDX-License-Identifier: MIT\n"


def _translit_module(lang: str) -> str:
    language, table = TRANSLIT[lang]
    return (LICENSE_HEADER + f'"""Transliteration table for {language}."""\n\n'
            + f"TABLE = {table!r}\n")


TRANSLIT_INIT = LICENSE_HEADER + code(f'''
    """Per-language tables that turn accented letters into plain ASCII."""
    from __future__ import annotations

    from importlib import import_module

    LANGUAGES = {tuple(sorted(TRANSLIT))!r}


    def table(lang: str) -> dict:
        """The transliteration table of `lang` (a two-letter language code)."""
        if lang not in LANGUAGES:
            raise ValueError(f"no transliteration table for {{lang!r}}")
        return import_module(f"safetext.translit.{{lang}}").TABLE


    def transliterate(text: str, lang: str) -> str:
        """`text` with the letters of `lang`'s table replaced, lower and upper case."""
        mapping = table(lang)
        return "".join(mapping.get(ch, mapping.get(ch.lower(), ch)) for ch in text)
    ''')

SAFE_ROOT_PATHS = code(r'''
    """Joining untrusted path parts under a base folder, and cleaning file names."""
    from __future__ import annotations

    import os


    class UnsafePathError(ValueError):
        """Raised when a path would leave the folder it must stay in."""


    class SafeRoot:
        """A folder inside which untrusted relative paths are resolved."""

        def __init__(self, base: str) -> None:
            self.base = os.path.abspath(base)

        def join(self, *parts: str) -> str:
            """Join `parts` onto the base; raise UnsafePathError if the result lies outside it."""
            target = os.path.abspath(os.path.join(self.base, *parts))
            if os.path.commonpath([self.base, target]) != self.base:
                raise UnsafePathError(f"{os.path.join(*parts)!r} escapes {self.base!r}")
            return target

        def __repr__(self) -> str:
            return f"SafeRoot({self.base!r})"


    def safe_join(base: str, *parts: str) -> str:
        """Join `parts` onto `base`; raise UnsafePathError if the result lies outside `base`."""
        return SafeRoot(base).join(*parts)


    def sanitize_filename(name: str) -> str:
        """A file name with path separators and control characters replaced by '_'."""
        cleaned = "".join("_" if ch in "/\\" or ord(ch) < 32 else ch for ch in name)
        cleaned = cleaned.strip(" .")
        return cleaned or "_"
    ''')

STEPS = (
    Step(
        kind="bug_fix", domain="security",
        message="Escape single quotes in escape_html\n\n"
                "Values escaped with escape_html were placed in single-quoted attributes by the "
                "templates, where an apostrophe ended the attribute and let users inject "
                "event handlers.",
        edits=(
            Replace("safetext/html.py", """('"', "&quot;"))""", """('"', "&quot;"), ("'", "&#x27;"))"""),
            Append("tests/test_html.py", code('''
                def test_escape_html_escapes_single_quotes():
                    got = escape_html("x' onmouseover='alert(1)")
                    assert got == "x&#x27; onmouseover=&#x27;alert(1)", f"got {got!r}"
                ''')),
        ),
        fail_to_pass=("tests/test_html.py::test_escape_html_escapes_single_quotes",),
        functions=("escape_html",),
    ),
    Step(
        kind="bug_fix", domain="validation",
        message="Match the whole user name, not only its start\n\n"
                "is_valid_username used re.match, which accepts any name that merely starts "
                "with valid characters, so 'alice; drop table' and 40-character names passed.",
        edits=(
            Replace("safetext/validate.py", "return _USERNAME.match(name) is not None",
                    "return _USERNAME.fullmatch(name) is not None"),
            Append("tests/test_validate.py", code('''
                def test_usernames_must_match_entirely():
                    for name in ("alice; drop table users", "bob!", "a" * 33):
                        assert not is_valid_username(name), f"{name!r} should be rejected"
                    assert is_valid_username("a" * 32)
                ''')),
        ),
        fail_to_pass=("tests/test_validate.py::test_usernames_must_match_entirely",),
        functions=("is_valid_username",),
    ),
    Step(
        kind="bug_fix", domain="security",
        message="Compare path components in safe_join, not string prefixes\n\n"
                "safe_join checked the joined path with startswith, so '../data-evil/x' under "
                "/srv/data was accepted because '/srv/data-evil' starts with '/srv/data'.",
        edits=(
            Replace("safetext/paths.py", "    if not target.startswith(root):\n",
                    "    if os.path.commonpath([root, target]) != root:\n"),
            Append("tests/test_paths.py", code('''
                def test_safe_join_rejects_a_sibling_with_the_same_prefix():
                    with pytest.raises(UnsafePathError):
                        got = safe_join("/srv/data", "../data-evil/x")
                        pytest.fail(f"escaped the base folder: {got}")
                ''')),
        ),
        fail_to_pass=("tests/test_paths.py::test_safe_join_rejects_a_sibling_with_the_same_prefix",),
        functions=("safe_join",),
    ),
    Step(
        kind="feature_add",
        message="Add strip_tags for plain-text previews\n\n"
                "Notification e-mails need a text version of user HTML; strip_tags drops the "
                "tags and keeps the text (it is not a sanitizer).",
        edits=(
            Replace("safetext/html.py", "from __future__ import annotations\n",
                    "from __future__ import annotations\n\nimport re\n"),
            Replace("safetext/html.py", "_BLOCKED_PREFIXES = (",
                    "_TAG = re.compile(r\"<[^>]*>\")\n_BLOCKED_PREFIXES = ("),
            Append("safetext/html.py", code('''
                def strip_tags(html: str) -> str:
                    """Text with the tags removed: '<b>hi</b> there' -> 'hi there'. Not a sanitizer."""
                    return _TAG.sub("", html)
                ''')),
            Append("tests/test_html.py", code('''
                def test_strip_tags_keeps_the_text():
                    from safetext.html import strip_tags

                    assert strip_tags("<p>Hello <b>world</b></p>") == "Hello world"
                    assert strip_tags("no tags") == "no tags"
                ''')),
        ),
        fail_to_pass=("tests/test_html.py::test_strip_tags_keeps_the_text",),
        functions=("strip_tags",),
    ),
    Step(
        kind="short_message",
        message="tweak slugify",
        edits=(
            Replace("safetext/validate.py", code('''
                def slugify(text: str) -> str:
                    """'Héllo, World!' -> 'hello-world'."""
                    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
                    return _SLUG_JUNK.sub("-", ascii_text.lower()).strip("-")
                '''), code('''
                def slugify(text: str, max_length: int = 60) -> str:
                    """'Héllo, World!' -> 'hello-world', at most `max_length` characters."""
                    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
                    slug = _SLUG_JUNK.sub("-", ascii_text.lower()).strip("-")
                    return slug[:max_length].rstrip("-")
                ''')),
            Append("tests/test_validate.py", code('''
                def test_slugify_caps_the_length():
                    assert slugify("word " * 40, max_length=20) == "word-word-word-word"
                ''')),
        ),
        functions=("slugify",),
    ),
    Step(
        kind="bug_fix", domain="memory",
        message="Stop reading a request body at the size limit\n\n"
                "read_limited read the whole stream into memory before checking its size, so a "
                "client sending gigabytes could exhaust memory despite the limit.",
        edits=(
            Replace("safetext/limits.py", "    data = stream.read()\n",
                    "    data = stream.read(max_bytes + 1)  # one byte more tells us it is too large\n"),
            Append("tests/test_limits.py", code('''
                def test_reading_stops_just_past_the_limit():
                    stream = io.BytesIO(b"x" * 1_000_000)
                    with pytest.raises(PayloadTooLarge):
                        read_limited(stream, 100)
                    assert stream.tell() <= 101, f"read {stream.tell()} bytes to enforce a 100-byte limit"
                ''')),
        ),
        fail_to_pass=("tests/test_limits.py::test_reading_stops_just_past_the_limit",),
        functions=("read_limited",),
    ),
    Step(
        kind="bug_fix", domain="security",
        message="Block script links regardless of case and whitespace\n\n"
                "is_safe_url compared the raw prefix, so 'JavaScript:alert(1)', ' javascript:' "
                "and 'java\\tscript:' were reported safe although browsers run them.",
        edits=(
            Replace("safetext/html.py", '_BLOCKED_PREFIXES = ("javascript:", "vbscript:", "data:")',
                    '_BLOCKED_SCHEMES = {"javascript", "vbscript", "data"}'),
            Replace("safetext/html.py", "    return not url.startswith(_BLOCKED_PREFIXES)\n",
                    "    compact = \"\".join(url.split())  # browsers ignore whitespace inside the scheme\n"
                    "    scheme, colon, _ = compact.partition(\":\")\n"
                    "    return not (colon and scheme.lower() in _BLOCKED_SCHEMES)\n"),
            Append("tests/test_html.py", code(r'''
                def test_script_links_are_unsafe_in_any_case_or_spacing():
                    for url in ("JavaScript:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)", "VBSCRIPT:x"):
                        assert not is_safe_url(url), f"{url!r} was reported safe"
                ''')),
        ),
        fail_to_pass=("tests/test_html.py::test_script_links_are_unsafe_in_any_case_or_spacing",),
        functions=("is_safe_url",),
    ),
    Step(
        kind="large",
        message="Add transliteration tables for seventeen languages\n\n"
                "Each language gets its own licensed module so translators can maintain them "
                "separately; slug generation can use them later.",
        edits=(
            Write("safetext/translit/__init__.py", TRANSLIT_INIT),
            *(Write(f"safetext/translit/{lang}.py", _translit_module(lang)) for lang in sorted(TRANSLIT)),
            Write("tests/test_translit.py", code('''
                import pytest

                from safetext.translit import LANGUAGES, table, transliterate


                def test_every_table_maps_single_letters_to_ascii():
                    for lang in LANGUAGES:
                        for letter, plain in table(lang).items():
                            assert len(letter) == 1 and plain.isascii(), (lang, letter, plain)


                def test_transliterate_german():
                    assert transliterate("Straße", "de") == "Strasse"


                def test_unknown_language_is_refused():
                    with pytest.raises(ValueError, match="no transliteration table"):
                        table("xx")
                ''')),
        ),
        functions=("table", "transliterate"),
    ),
    Step(
        kind="bug_fix", domain="validation",
        message="Reject e-mail addresses with two @ signs or empty domain labels\n\n"
                "is_valid_email split at the first '@' and only looked for a dot in the rest, "
                "so 'a@b@example.com' and 'bob@example..com' were accepted and later bounced.",
        edits=(
            Replace("safetext/validate.py",
                    "    local, at, domain = address.partition(\"@\")\n"
                    "    return bool(local and at and \".\" in domain and \" \" not in address)\n",
                    "    local, at, domain = address.rpartition(\"@\")\n"
                    "    labels = domain.split(\".\")\n"
                    "    return bool(local and at and \"@\" not in local and len(labels) >= 2\n"
                    "                and all(labels) and \" \" not in address)\n"),
            Append("tests/test_validate.py", code('''
                def test_emails_with_two_at_signs_or_empty_labels_are_rejected():
                    for address in ("a@b@example.com", "bob@example..com", "bob@.com", "bob@example."):
                        assert not is_valid_email(address), f"{address!r} should be rejected"
                ''')),
        ),
        fail_to_pass=("tests/test_validate.py::test_emails_with_two_at_signs_or_empty_labels_are_rejected",),
        functions=("is_valid_email",),
    ),
    Step(
        kind="bug_fix", domain="security",
        message="Generate tokens with the secrets module\n\n"
                "generate_token drew from the random module, whose Mersenne Twister output can "
                "be predicted from earlier tokens, so password-reset tokens were guessable.",
        edits=(
            Replace("safetext/tokens.py", "import random\n", "import secrets\n"),
            Replace("safetext/tokens.py", "random.choice(ALPHABET)", "secrets.choice(ALPHABET)"),
            Replace("tests/test_tokens.py", "from safetext.tokens import",
                    "import random\n\nfrom safetext.tokens import"),
            Append("tests/test_tokens.py", code('''
                def test_tokens_do_not_follow_the_random_module_seed():
                    random.seed(1234)
                    first = generate_token()
                    random.seed(1234)
                    second = generate_token()
                    assert first != second, "reseeding random reproduced the same token: tokens are predictable"
                ''')),
        ),
        fail_to_pass=("tests/test_tokens.py::test_tokens_do_not_follow_the_random_module_seed",),
        functions=("generate_token",),
    ),
    Step(
        kind="feature_add",
        message="Add mask_secret for logging credentials\n\n"
                "API keys ended up in logs in full; mask_secret keeps only the last few "
                "characters so a key can still be recognised.",
        edits=(
            Append("safetext/tokens.py", code('''
                def mask_secret(value: str, visible: int = 4) -> str:
                    """`value` with all but its last `visible` characters replaced by '*'."""
                    if visible <= 0 or len(value) <= visible:
                        return "*" * len(value)
                    return "*" * (len(value) - visible) + value[-visible:]
                ''')),
            Append("tests/test_tokens.py", code('''
                def test_mask_secret_keeps_the_last_characters():
                    from safetext.tokens import mask_secret

                    assert mask_secret("sk-live-123456") == "**********3456"
                    assert mask_secret("abc") == "***"
                    assert mask_secret("abcdef", visible=0) == "******"
                ''')),
        ),
        fail_to_pass=("tests/test_tokens.py::test_mask_secret_keeps_the_last_characters",),
        functions=("mask_secret",),
    ),
    Step(
        kind="refactor",
        message="Introduce SafeRoot and build safe_join on it\n\n"
                "Handlers resolved many paths under the same upload folder and re-normalised the "
                "base every time; SafeRoot holds the normalised base and safe_join delegates.",
        edits=(
            Write("safetext/paths.py", SAFE_ROOT_PATHS),
            Append("tests/test_paths.py", code('''
                def test_safe_root_resolves_paths_inside_its_base():
                    from safetext.paths import SafeRoot

                    root = SafeRoot("/srv/uploads/")
                    assert root.base == "/srv/uploads"
                    assert root.join("a", "b.png") == "/srv/uploads/a/b.png"
                    assert repr(root) == "SafeRoot('/srv/uploads')"
                    with pytest.raises(UnsafePathError):
                        root.join("../uploads2/x")
                ''')),
        ),
        fail_to_pass=("tests/test_paths.py::test_safe_root_resolves_paths_inside_its_base",),
        functions=("SafeRoot", "SafeRoot.join", "safe_join"),
    ),
)

REPO = RepoSpec(
    name="safetext",
    description="Helpers for handling untrusted text.",
    initial_message="Initial import of safetext\n\n"
                    "HTML escaping, link checks, safe path joining, input validation, tokens and "
                    "size-limited reads, with a pytest suite.",
    files=FILES,
    steps=STEPS,
)
