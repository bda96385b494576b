"""A kernelspec whose kernel exits at once, saying why: a start that fails, on demand."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

from flax_errors_ext.execution.runs.kernelspec import KERNEL_NAME

if TYPE_CHECKING:
    from pathlib import Path

EXITS_AT_ONCE = "import sys; sys.stderr.write('no kernel today: {reason}\\n'); sys.exit(3)"


def failing_kernelspec(data_dir: Path, reason: str) -> None:
    """A ``flax-errors`` kernelspec under ``data_dir`` whose kernel exits at once, status 3.

    Before it exits, the kernel writes ``no kernel today: <reason>`` to its stderr.
    """
    spec = data_dir / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True)
    argv = [sys.executable, "-c", EXITS_AT_ONCE.format(reason=reason), "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "failing"}))
