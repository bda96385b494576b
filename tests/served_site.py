"""A Sphinx project built to HTML with execution off, and served from localhost."""

from __future__ import annotations

import functools
import http.server
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx.testing.util import SphinxTestApp

from tests.root_modules import forget_root_modules

if TYPE_CHECKING:
    from collections.abc import Iterator


def build_html(srcdir: Path, **confoverrides: Any) -> Iterator[Path]:
    """The HTML output of ``srcdir``, built once, execution off; for a fixture to yield from.

    The pages, anchors and search do not depend on the examples having run.
    """
    before = set(sys.modules)
    app = SphinxTestApp(
        "html", srcdir=srcdir, confoverrides={"nb_execution_mode": "off", **confoverrides}
    )
    try:
        app.build()
        assert app.statuscode == 0, app.warning.getvalue()
    finally:
        app.cleanup()
        # Module fixtures outlive conftest's per-test cleanup: forget the root's error
        # modules here, or later tests would import this copy of them.
        forget_root_modules(before)
    yield Path(app.outdir)


def serve(root: Path) -> Iterator[str]:
    """The URL of ``root`` served from localhost, until the generator is closed."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(root))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        thread.join()
