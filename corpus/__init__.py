"""The bundled demo corpus: small real git repositories built from data, with a manifest of
what every commit is (kind, domain, fail-to-pass tests). The Python corpus is the default (the
quickstart's); `build_corpus(dest, "javascript")` / `ensure_corpus(language="javascript")`
build the JavaScript one (jskit) on its own. `repos/` holds the repositories as
data; `builder` writes them out deterministically. `dev_set` says where the dev set of real
repositories (git bundles beside the checkout) lies.

Imports nothing of evo, operators, fitness, harness, sandbox, archive or llm.
"""

from .builder import CORPUS_VERSION, DOMAINS, CorpusError, build_corpus, ensure_corpus, load_manifest
from .dev_set import dev_set

__all__ = ["CORPUS_VERSION", "DOMAINS", "CorpusError", "build_corpus", "dev_set", "ensure_corpus", "load_manifest"]
