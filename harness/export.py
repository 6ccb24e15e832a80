"""Exporting tasks: where each format is written (what `sebgen export` reads is harness/inputs.py).

    export_swebench(tasks, out_jsonl, mirror_dir=..., build=...)   # harness/swebench.py
    export_harbor(tasks, out_dir, base_image=..., network=...)       # harness/harbor.py
    materialize(tasks, mirror_dir)                                   # harness/mirror.py

No export holds a file of the host's (paths, CA bundle) or a git object that leads to the fix.
"""

from __future__ import annotations

from .export_errors import ExportError
from .harbor import export_harbor
from .mirror import materialize
from .swebench import export_swebench

__all__ = ["ExportError", "export_harbor", "export_swebench", "materialize"]
