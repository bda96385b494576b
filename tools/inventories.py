"""Regenerate the Sphinx inventories shipped in ``flax_errors_ext/inventory/``.

``python -m tools.inventories [SITE ...]`` writes each site's ``objects.inv``
(``python.inv``, ``flax-linen.inv``, ``flax-nnx.inv``, ``jax.inv``); the folder's
README says where each comes from. Nothing here runs when a site builds: the site
reads the committed files, offline.

* Python: the ``objects.inv`` Debian's ``python3.11-doc`` package ships, fetched
  with ``apt-get download``.
* Flax Linen and Flax NNX: a Sphinx build of the API reference in Flax's sdist
  (``docs/api_reference``, ``docs_nnx/api_reference``, with Flax's own ``_ext``
  and ``_templates``) over the installed flax, of the same release. Run it with the
  Sphinx Flax's docs pin (6.2.1: ``nox -s tests_lowest``'s environment), which
  Flax's ``flax_module`` directive is written for.
* JAX: its sdist holds no documentation. A Sphinx build laid out as JAX's API pages
  are (each module's page ``<module>.html``, its members listed by ``autosummary``
  with ``:toctree: _autosummary``, one page each) over the installed jax.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import inspect
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tools.flax_sdist import flax_source

OUT = Path(__file__).resolve().parents[1] / "flax_errors_ext" / "inventory"
CACHE = Path.home() / ".cache" / "flax-errors" / "flax-sdist"
SITES = ("python", "flax-linen", "flax-nnx", "jax")
JAX_MODULES = (
    "jax",
    "jax.numpy",
    "jax.lax",
    "jax.random",
    "jax.nn",
    "jax.tree_util",
    "jax.debug",
    "jax.sharding",
)
"""JAX's API pages that the catalogue's docstrings refer to (``jax.rst``, ``jax.numpy.rst``...)."""


def python_inventory(work: Path) -> Path:
    """Debian's python3.11-doc's ``objects.inv``."""
    subprocess.run(["apt-get", "download", "python3.11-doc"], cwd=work, check=True)
    (deb,) = work.glob("python3.11-doc_*.deb")
    subprocess.run(["dpkg-deb", "-x", str(deb), str(work / "deb")], check=True)
    return work / "deb" / "usr" / "share" / "doc" / "python3.11" / "html" / "objects.inv"


def flax_inventory(work: Path, docs: str, cache: Path) -> Path:
    """A build of the API reference in Flax's sdist (``docs`` or ``docs_nnx``)."""
    version = importlib.metadata.version("flax")
    source = flax_source(version, [f"{docs}/"], cache) / docs
    # Flax's _ext imports docs.conf_sphinx_patch: the sdist's folder, named docs.
    root = work / "flax"
    for part in ("api_reference", "_ext", "_templates"):
        shutil.copytree(source / part, root / "docs" / part)
    shutil.copyfile(source / "conf_sphinx_patch.py", root / "docs" / "conf_sphinx_patch.py")
    conf = f"""
import sys
sys.path[:0] = [{str(root)!r}, {str(root / "docs" / "_ext")!r}]
project = "Flax"
extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary", "sphinx.ext.napoleon",
              "flax_module"]
templates_path = ["_templates"]
autosummary_generate = True
autodoc_typehints = "none"
root_doc = "api_reference/index"
exclude_patterns = ["_build", "_ext", "_templates"]
html_theme = "basic"
"""
    (root / "docs" / "conf.py").write_text(conf)
    return _build(root / "docs")


def jax_inventory(work: Path) -> Path:
    """A build laid out as JAX's API pages, over the installed jax."""
    src = work / "jax"
    src.mkdir()
    pages = []
    for name in JAX_MODULES:
        module = importlib.import_module(name)
        members = sorted(_public(module))
        if name == "jax":
            members += [f"Array.{m}" for m in sorted(_public(module.Array))]
        listed = "\n".join(f"   {m}" for m in members)
        title = f"``{name}`` module"
        (src / f"{name}.rst").write_text(
            f"{title}\n{'=' * len(title)}\n\n.. automodule:: {name}\n\n"
            f".. currentmodule:: {name}\n\n.. autosummary::\n   :toctree: _autosummary\n\n"
            f"{listed}\n"
        )
        pages.append(name)
    toctree = "\n".join(f"   {page}" for page in pages)
    (src / "index.rst").write_text(f"JAX\n===\n\n.. toctree::\n\n{toctree}\n")
    (src / "conf.py").write_text(
        'project = "JAX"\n'
        'extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary", "sphinx.ext.napoleon"]\n'
        "autosummary_generate = True\n"
        'autodoc_typehints = "none"\n'
        'html_theme = "basic"\n'
    )
    return _build(src)


def _public(obj: object) -> list[str]:
    names = getattr(obj, "__all__", None) if inspect.ismodule(obj) else None
    names = names or [n for n in dir(obj) if not n.startswith("_")]
    return [
        n for n in names if not n.startswith("_") and not inspect.ismodule(getattr(obj, n, None))
    ]


def _build(src: Path) -> Path:
    out = src / "_build" / "html"
    # Docstrings of other projects warn of much (their own references): the
    # inventory is what is wanted, so warnings are shown only when the build fails.
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", "-j", "2", str(src), str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        sys.exit(f"sphinx-build {src} failed:\n{done.stderr[-3000:]}")
    return out / "objects.inv"


def main(argv: list[str] | None = None) -> None:
    """Write the inventories asked for (all by default) into ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sites", nargs="*", metavar="SITE", help=f"of {', '.join(SITES)}")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--cache", type=Path, default=CACHE, help="where Flax's sdist is kept")
    args = parser.parse_args(argv)
    unknown = set(args.sites) - set(SITES)
    if unknown:
        parser.error(f"no such site: {', '.join(sorted(unknown))}")
    for site in args.sites or SITES:
        with tempfile.TemporaryDirectory(prefix=f"inventory-{site}-") as tmp:
            work = Path(tmp)
            if site == "python":
                made = python_inventory(work)
            elif site == "jax":
                made = jax_inventory(work)
            else:
                docs = "docs" if site == "flax-linen" else "docs_nnx"
                made = flax_inventory(work, docs, args.cache)
            shutil.copyfile(made, args.out / f"{site}.inv")
            print(f"{args.out / f'{site}.inv'}: {made.stat().st_size} bytes")


if __name__ == "__main__":
    main()
