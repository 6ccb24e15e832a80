"""Reading a snapshot's packaging files: what its tests need installed.

Each reader fills a `Found` from one file: extras and groups whose names say tests (dev-like
ones only when none does), tests_require, tox deps, requirement files, pytest plugins the
pytest config needs, VCS-derived versions and requires-python. `environment.detect` turns that
into an InstallRecipe.
"""

from __future__ import annotations

import ast
import configparser
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, packaged as tomli
    import tomli as tomllib

from sandbox import list_files_at

_REQ_FILE_RE = re.compile(r"requirements.*\.(txt|in)$|^(test|tests|dev|ci)[-_]?requirements.*\.(txt|in)$")
_REQ_DIR_RE = re.compile(r"^requirements?([-_].*)?$")
_TEST_WORDS = ("test", "tests", "testing")
_DEV_WORDS = ("dev", "develop", "development", "ci")
# Tools that derive the version from VCS -> the variables that make them skip git
_VCS_TOOLS = {
    "setuptools_scm": ("SETUPTOOLS_SCM_PRETEND_VERSION",),
    "setuptools-scm": ("SETUPTOOLS_SCM_PRETEND_VERSION",),
    "hatch-vcs": ("SETUPTOOLS_SCM_PRETEND_VERSION",),
    "hatch_vcs": ("SETUPTOOLS_SCM_PRETEND_VERSION",),
    "pbr": ("PBR_VERSION",),
    "pdm-backend": ("PDM_BUILD_SCM_VERSION",),
    "poetry-dynamic-versioning": ("POETRY_DYNAMIC_VERSIONING_BYPASS",),
    "uv-dynamic-versioning": ("UV_DYNAMIC_VERSIONING_BYPASS",),
}
# Packaging and lint tools that dev lists carry and that running tests never needs
_NOT_FOR_TESTS = re.compile(
    r"^(tox|nox|pre-commit|sphinx.*|twine|build|towncrier|check-manifest|black|isort|flake8.*|ruff|pylint|"
    r"codecov|bump2?version|bumpver|furo|myst.*|pip-tools|wheel|setuptools|hatch|pdm|poetry|ipython|ipdb|"
    r"mkdocs.*|readme[-_]renderer|docutils|coveralls|pyright|uv)$",
    re.I,
)
# pytest command-line flags and ini keys -> the plugin that defines them (environment/known_packages.yaml)
KNOWN = yaml.safe_load(Path(__file__).with_name("known_packages.yaml").read_text())
PLUGIN_FLAGS: dict[str, str] = KNOWN["pytest_flags"]
PLUGIN_INI_KEYS: dict[str, str] = KNOWN["pytest_ini_keys"]


def _words(name: str) -> set[str]:
    return set(re.split(r"[-_.\s]+", name.lower()))


def pick_test_names(names) -> list[str]:
    """Of extras / groups / environments, those whose name says tests; dev-like ones otherwise."""
    names = list(names)
    tests = [n for n in names if _words(n) & set(_TEST_WORDS)]
    exact = [n for n in tests if n.lower() in _TEST_WORDS]
    if exact:
        return exact
    if tests:
        return tests[:1]
    return [n for n in names if _words(n) & set(_DEV_WORDS)][:1]


def _name_of(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;@(]", requirement.strip(), maxsplit=1)[0]


def keep_for_tests(requirements) -> list[str]:
    """Requirement strings worth installing to run tests (no local paths, no lint/packaging tools)."""
    out = []
    for req in requirements:
        req = str(req).strip()
        if not req or req.startswith(("-", "#", ".", "/", "{")) or "://" in req.split(";")[0]:
            continue
        if _NOT_FOR_TESTS.match(_name_of(req)):
            continue
        if req not in out:
            out.append(req)
    return out


def _toml(text: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def ini(text: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        pass
    return parser


def dependency_group(groups: dict, name: str, seen: frozenset = frozenset()) -> list[str]:
    """A PEP 735 group's requirements with `{include-group = ...}` entries expanded."""
    out = []
    for entry in groups.get(name, []) or []:
        if isinstance(entry, dict) and "include-group" in entry and entry["include-group"] not in seen:
            out += dependency_group(groups, entry["include-group"], seen | {name})
        elif isinstance(entry, str):
            out.append(entry)
    return out


def _poetry_requirements(deps: dict) -> list[str]:
    out = []
    for name, spec in (deps or {}).items():
        if name.lower() == "python" or (isinstance(spec, dict) and ("path" in spec or "git" in spec)):
            continue
        out.append(name)  # poetry constraints (^1.2) are not pip syntax: the name is enough
    return out


@dataclass
class Found:
    declares: bool = False
    extras: list[str] = field(default_factory=list)
    dev: list[str] = field(default_factory=list)
    dev_only: list[str] = field(default_factory=list)  # from dev-named sources: used when no test-named one exists
    plugins: list[str] = field(default_factory=list)
    vcs_vars: list[str] = field(default_factory=list)
    version_files: list[str] = field(default_factory=list)  # written by the VCS version tool at build
    requires_python: str = ""
    dist_name: str = ""
    sources: list[str] = field(default_factory=list)

    def add_dev(self, reqs, source: str, name: str = "test") -> None:
        into = self.dev if _words(name) & set(_TEST_WORDS) else self.dev_only
        kept = [r for r in keep_for_tests(reqs) if r not in into]
        if kept:
            into += kept
            self.sources.append(f"{source}: {', '.join(kept)}")

    def test_requirements(self) -> list[str]:
        """Test-named sources win; dev-named ones count only when there is none."""
        if self.dev or any(_words(e) & set(_TEST_WORDS) for e in self.extras):
            return self.dev
        return self.dev_only

    def add_vcs(self, tool: str, source: str) -> None:
        for var in _VCS_TOOLS.get(tool, ("SETUPTOOLS_SCM_PRETEND_VERSION",)):
            if var not in self.vcs_vars:
                self.vcs_vars.append(var)
        self.sources.append(f"{source}: version from VCS ({tool}), pretend version set")


def read_pyproject(text: str, found: Found) -> None:
    data = _toml(text)
    if not data:
        found.declares = bool(text.strip())  # unreadable: let pip decide
        return
    project = data.get("project", {}) or {}
    tool = data.get("tool", {}) or {}
    found.dist_name = found.dist_name or str(project.get("name", "") or tool.get("poetry", {}).get("name", ""))
    optional = project.get("optional-dependencies", {}) or {}
    extras = [e for e in pick_test_names(optional) if optional.get(e)]
    poetry = tool.get("poetry", {}) or {}
    # a buildable project is installed even without dependencies: its metadata (version, entry
    # points) is what tests read through importlib.metadata; the tree stays first on the path
    found.declares = found.declares or bool(project) or bool(data.get("build-system")) or bool(poetry)
    if extras:
        found.extras += [e for e in extras if e not in found.extras]
        found.sources.append(f"pyproject.toml extras: {', '.join(extras)}")
    found.requires_python = found.requires_python or str(project.get("requires-python", "") or "")
    groups = data.get("dependency-groups", {}) or {}
    for g in pick_test_names(groups):
        found.add_dev(dependency_group(groups, g), f"pyproject.toml dependency group {g}", g)
    envs = (tool.get("hatch", {}) or {}).get("envs", {}) or {}
    for env in ["default"] + pick_test_names(e for e in envs if e != "default"):
        spec = envs.get(env, {}) or {}
        found.add_dev(
            list(spec.get("dependencies", []) or []) + list(spec.get("extra-dependencies", []) or []),
            f"hatch env {env}",
            env if env != "default" else "dev",
        )
    pdm = tool.get("pdm", {}) or {}
    pdm_dev = pdm.get("dev-dependencies", {}) or {}
    for g in pick_test_names(pdm_dev):
        found.add_dev(pdm_dev[g], f"pdm dev group {g}", g)
    if poetry.get("dev-dependencies"):
        found.add_dev(_poetry_requirements(poetry["dev-dependencies"]), "poetry dev-dependencies", "dev")
    poetry_groups = poetry.get("group", {}) or {}
    for g in pick_test_names(poetry_groups):
        found.add_dev(_poetry_requirements((poetry_groups[g] or {}).get("dependencies", {})), f"poetry group {g}", g)
    build_requires = " ".join(str(r) for r in (data.get("build-system", {}) or {}).get("requires", []) or [])
    for name in _VCS_TOOLS:
        if re.search(rf"(^|\s){re.escape(name)}\b", build_requires, re.I):
            if name == "pdm-backend" and (pdm.get("version", {}) or {}).get("source") != "scm":
                continue
            found.add_vcs(name, "pyproject.toml build-system")
    if not found.vcs_vars and (
        "setuptools_scm" in tool or (tool.get("hatch", {}) or {}).get("version", {}).get("source") == "vcs"
    ):
        found.add_vcs("setuptools_scm", "pyproject.toml [tool]")
    scm = tool.get("setuptools_scm", {}) or {}
    hatch_vcs = (((tool.get("hatch", {}) or {}).get("build", {}) or {}).get("hooks", {}) or {}).get("vcs", {}) or {}
    for path in (
        scm.get("version_file"),
        scm.get("write_to"),
        hatch_vcs.get("version-file"),
        hatch_vcs.get("version_file"),
    ):
        add_version_file(found, path, "pyproject.toml")
    pytest_ini = tool.get("pytest", {}) or {}
    ini = pytest_ini.get("ini_options", pytest_ini) if isinstance(pytest_ini, dict) else {}
    read_pytest_options(ini, found, "pyproject.toml [tool.pytest]")
    legacy = (tool.get("tox", {}) or {}).get("legacy_tox_ini")
    if isinstance(legacy, str):
        read_tox(legacy, found, "pyproject.toml legacy_tox_ini")


def read_pytest_options(options: dict, found: Found, source: str) -> None:
    """Plugins a pytest configuration (ini section or TOML table) needs."""
    if not options:
        return
    needed: list[str] = []
    addopts = options.get("addopts", "")
    addopts = " ".join(addopts) if isinstance(addopts, list) else str(addopts)
    tokens = addopts.split()
    for i, token in enumerate(tokens):
        flag = token.split("=")[0]
        pair = f"{token} {tokens[i + 1]}" if token == "-p" and i + 1 < len(tokens) else ""
        for known, plugin in PLUGIN_FLAGS.items():
            if (
                flag == known
                or pair == known
                or (known.startswith("--") and flag.startswith(known + "-"))
                or (known == "-n" and re.fullmatch(r"-n\d+|-nauto", token))
            ):
                needed.append(plugin)
    for key in options:
        if PLUGIN_INI_KEYS.get(key):
            needed.append(PLUGIN_INI_KEYS[key])
    required = options.get("required_plugins", [])
    required = required.split() if isinstance(required, str) else list(required)
    needed += [str(r) for r in required]
    new = [p for p in dict.fromkeys(needed) if p not in found.plugins]
    if new:
        found.plugins += new
        found.sources.append(f"{source}: pytest plugins {', '.join(new)}")


def read_setup_cfg(text: str, found: Found) -> None:
    parser = ini(text)
    requires = parser.get("options", "install_requires", fallback="").strip()
    if parser.has_section("options.extras_require"):
        extras = [
            e
            for e in pick_test_names(parser.options("options.extras_require"))
            if parser.get("options.extras_require", e, fallback="").strip()
        ]
        if extras:
            found.extras += [e for e in extras if e not in found.extras]
            found.sources.append(f"setup.cfg extras: {', '.join(extras)}")
    else:
        extras = []
    found.declares = found.declares or bool(requires) or bool(extras)
    found.dist_name = found.dist_name or parser.get("metadata", "name", fallback="").strip()
    found.requires_python = found.requires_python or parser.get("options", "python_requires", fallback="").strip()
    tests_require = parser.get("options", "tests_require", fallback="")
    if tests_require.strip():
        found.add_dev([ln for ln in tests_require.splitlines() if ln.strip()], "setup.cfg tests_require")
    setup_requires = parser.get("options", "setup_requires", fallback="")
    for tool in ("setuptools_scm", "setuptools-scm", "pbr"):
        if tool in setup_requires:
            found.add_vcs(tool, "setup.cfg setup_requires")
            break
    if parser.has_section("pbr") and not found.vcs_vars:
        found.add_vcs("pbr", "setup.cfg [pbr]")
    if parser.has_section("tool:pytest"):
        read_pytest_options(dict(parser.items("tool:pytest")), found, "setup.cfg [tool:pytest]")
    if parser.has_section("testenv"):
        read_tox(text, found, "setup.cfg [testenv]")


def _literal(node: ast.AST, names: dict):
    if isinstance(node, ast.Name) and node.id in names:
        return _literal(names[node.id], names)
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


@dataclass
class _SetupCall:
    """A setup() call of a setup.py: its keyword arguments, and the module's top-level
    assignments that a keyword naming a variable resolves through."""

    keywords: dict[str, ast.AST]
    names: dict[str, ast.AST]

    def literal(self, keyword: str):
        """The keyword's value as a literal; None when it is absent or no literal."""
        return _literal(self.keywords[keyword], self.names) if keyword in self.keywords else None


def _setup_calls(tree: ast.Module) -> Iterator[_SetupCall]:
    names = {
        t.id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "setup":
            yield _SetupCall({k.arg: k.value for k in node.keywords if k.arg}, names)


def add_version_file(found: Found, path, source: str) -> None:
    """A module the VCS version tool writes at build (`source` names it): each run writes it too."""
    if isinstance(path, str) and path.endswith(".py") and path not in found.version_files:
        found.version_files.append(path)
        found.sources.append(f"{source}: {path} is written from VCS at build; each run writes it")


def read_setup_py(text: str, found: Found) -> None:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        found.declares = found.declares or "install_requires" in text
        return
    for call in _setup_calls(tree):
        found.declares = found.declares or "install_requires" in call.keywords
        extras = call.literal("extras_require")
        if isinstance(extras, dict):
            chosen = [e for e in pick_test_names(extras) if extras.get(e)]
            if chosen:
                found.extras += [e for e in chosen if e not in found.extras]
                found.declares = True
                found.sources.append(f"setup.py extras: {', '.join(chosen)}")
        tests_require = call.literal("tests_require")
        if isinstance(tests_require, (list, tuple)):
            found.add_dev(tests_require, "setup.py tests_require")
        name = call.literal("name")
        if isinstance(name, str):
            found.dist_name = found.dist_name or name
        python_requires = call.literal("python_requires")
        if isinstance(python_requires, str):
            found.requires_python = found.requires_python or python_requires
        scm = call.literal("use_scm_version")  # petl's {"write_to": "petl/version.py"}
        if isinstance(scm, dict):
            add_version_file(found, scm.get("version_file") or scm.get("write_to"), "setup.py")
    if not found.vcs_vars:
        if "use_scm_version" in text or "setuptools_scm" in text:
            found.add_vcs("setuptools_scm", "setup.py")
        elif re.search(r"\bpbr\s*=\s*True", text):
            found.add_vcs("pbr", "setup.py")


def _tox_deps(value: str) -> tuple[list[str], list[str]]:
    """Requirement strings and `-r` files of a tox deps value (factor-conditional lines skipped)."""
    reqs, files = [], []
    for line in value.splitlines():
        line = line.split(" #")[0].strip()
        if not line or line.startswith("#") or "{[" in line or re.match(r"^[\w\-,!{}.]+:\s", line):
            continue
        line = line.replace("{toxinidir}/", "").replace("{toxinidir}", ".")
        m = re.match(r"^-r\s*(\S+)", line)
        if m:
            files.append(m.group(1))
        elif not line.startswith("-"):
            reqs.append(line)
    return reqs, files


_TOX_TEST_ENV = re.compile(r"^testenv:(py\d*|pypy\d*|test\w*|tests|unit\w*)([-_.]\S*)?$", re.I)


def read_tox(text: str, found: Found, source: str, req_files: list[str] | None = None) -> None:
    """tox's deps: `[testenv]`, and the environments that run the tests on one Python
    (`[testenv:py27]`, `[testenv:py36-django]`, `[testenv:tests]`; not docs or lint), which
    old tox files name instead of a `[testenv]`."""
    parser = ini(text)
    sections = [n for n in parser.sections() if n == "testenv" or _TOX_TEST_ENV.match(n)]
    for section in sections:
        reqs, files = _tox_deps(parser.get(section, "deps", fallback=""))
        found.add_dev(reqs, f"{source} [{section}] deps")
        if req_files is not None:
            req_files += [f for f in files if f not in req_files]
    if parser.has_section("pytest"):
        read_pytest_options(dict(parser.items("pytest")), found, f"{source} [pytest]")


# -- requirement files -------------------------------------------------------------------
def _req_kind(name: str) -> str:
    """'test', 'dev' or 'runtime' for names worth installing; '' for unrelated ones (docs, mypy, ...)."""
    stem = re.sub(r"\.(txt|in)$", "", Path(name).name.lower())
    words = _words(stem) - {"requirements", "requirement", "reqs"}
    if words & set(_TEST_WORDS):
        return "test"
    if words & set(_DEV_WORDS):
        return "dev"
    if not words or words <= {"base", "main", "install", "runtime", "prod", "common"}:
        return "runtime"
    return ""


def requirement_files(names: list[str]) -> list[str]:
    """The requirement files to install: runtime ones plus the test-like (dev-like if none); `.txt`
    preferred to a `.in` of the same name."""
    stems = {re.sub(r"\.(txt|in)$", "", n) for n in names if n.endswith(".txt")}
    names = [n for n in names if n.endswith(".txt") or re.sub(r"\.in$", "", n) not in stems]
    kinds = {n: _req_kind(n) for n in names}
    tests = [n for n in names if kinds[n] == "test"]
    chosen = tests or [n for n in names if kinds[n] == "dev"]
    return sorted([n for n in names if kinds[n] == "runtime"]) + sorted(chosen)


def candidate_requirement_files(repo: Path, commit: str, top: list[str]) -> list[str]:
    """Requirement files at the top, in `requirements/` folders, and the test folder's own
    (`tests/requirements.txt`, `test/requirements-dev.txt`: where older suites list what they import)."""
    files = [n for n in top if _REQ_FILE_RE.search(n)]
    for folder in (n for n in top if n.lower() in _TEST_WORDS):
        try:
            entries = list_files_at(repo, f"{commit}:{folder}")
        except Exception:  # a file, not a folder
            continue
        files += [f"{folder}/{e}" for e in entries if _REQ_FILE_RE.search(e)]
    for folder in (n for n in top if _REQ_DIR_RE.match(n) and "." not in n):
        try:
            entries = list_files_at(repo, f"{commit}:{folder}")
        except Exception:  # a file, not a folder
            continue
        files += [f"{folder}/{e}" for e in entries if re.search(r"\.(txt|in)$", e)]
    return files


# -- what a suite pins -------------------------------------------------------------------
def project_requirements(text: dict[str, str]) -> list[str]:
    """The requirement strings the project itself declares (pyproject's `dependencies`,
    setup.cfg's and setup.py's `install_requires`): what any version chosen for it must meet."""
    project = _toml(text.get("pyproject.toml", "")).get("project", {}) or {}
    out = [str(r) for r in project.get("dependencies", []) or []]
    requires = ini(text.get("setup.cfg", "")).get("options", "install_requires", fallback="")
    out += [ln.strip() for ln in requires.splitlines() if ln.strip()]
    for value in _setup_py_literals(text.get("setup.py", ""), "install_requires"):
        if isinstance(value, (list, tuple)):
            out += [str(r) for r in value]
    return out


def _setup_py_literals(source: str, keyword: str) -> list:
    """The literal value of `keyword` in each `setup(...)` call of a setup.py (none when it does not parse)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [call.literal(keyword) for call in _setup_calls(tree)]


def extra_requirements(text: dict[str, str], extras) -> list[str]:
    """The requirement strings of the named extras in pyproject.toml, setup.cfg and setup.py."""
    wanted = {e.lower() for e in extras}
    return [r for name, reqs in project_extras(text).items() if name.lower() in wanted for r in reqs]


def project_extras(text: dict[str, str]) -> dict[str, list[str]]:
    """Every extra pyproject.toml, setup.cfg and setup.py declare -> its requirement strings."""
    out: dict[str, list[str]] = {}
    optional = (_toml(text.get("pyproject.toml", "")).get("project", {}) or {}).get("optional-dependencies", {}) or {}
    for name, reqs in optional.items():
        out.setdefault(str(name), []).extend(str(r) for r in reqs or [])
    parser = ini(text.get("setup.cfg", ""))
    if parser.has_section("options.extras_require"):
        for name in parser.options("options.extras_require"):
            lines = parser.get("options.extras_require", name).splitlines()
            out.setdefault(name, []).extend(ln.strip() for ln in lines if ln.strip())
    for value in _setup_py_literals(text.get("setup.py", ""), "extras_require"):
        if isinstance(value, dict):
            for name, reqs in value.items():
                if isinstance(reqs, (list, tuple)):
                    out.setdefault(str(name), []).extend(str(r) for r in reqs)
    return out
