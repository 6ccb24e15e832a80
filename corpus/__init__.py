"""The bundled demo corpus: small real git repositories built from data, with a manifest of
what every commit is (kind, domain, fail-to-pass tests). `repos/` holds the repositories as
data; `builder` writes them out deterministically.

Imports nothing of evo, operators, fitness, harness, sandbox, archive or llm.
"""

from .builder import CORPUS_VERSION, DOMAINS, CorpusError, build_corpus, ensure_corpus, load_manifest

__all__ = ["CORPUS_VERSION", "DOMAINS", "CorpusError", "build_corpus", "ensure_corpus", "load_manifest"]
