"""Write ``negatives.toml``: real errors that no catalogue entry documents.

Each case is code that fails with an error of JAX, NumPy, Optax, Orbax or Python
itself, none of them a catalogued class; running it here records the exception
line and message exactly as the library printed them. Run it again after
upgrading those libraries:

    python tests/model/lookup/collect_negatives.py
"""

from __future__ import annotations

import importlib.metadata
import sys
import tempfile
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "negatives.toml"

SETUP = """
import jax, jax.numpy as jnp, numpy as np, optax
import orbax.checkpoint as ocp
"""

CASES: dict[str, str] = {
    "jit-string-argument": "jax.jit(lambda x: x)('hello')",
    "jit-list-of-strings": "jax.jit(lambda x: x)(['a', 'b'])",
    "jit-numpy-string-array": "jax.jit(lambda x: x)(np.array(['a', 'b']))",
    "grad-string-argument": "jax.grad(lambda x: x)('hello')",
    "grad-integer-input": "jax.grad(lambda x: x.sum())(jnp.arange(3))",
    "grad-non-scalar-output": "jax.grad(lambda x: x)(jnp.ones(3))",
    "matmul-shapes": "jnp.ones((2, 3)) @ jnp.ones((2, 3))",
    "jnp-float-index": "jnp.ones(3)[jnp.array(1.5)]",
    "jnp-item-assignment": "x = jnp.ones(3)\nx[0] = 1.0",
    "jnp-concatenate": "jnp.concatenate([jnp.ones((2, 3)), jnp.ones((2, 4))])",
    "vmap-inconsistent-sizes": "jax.vmap(lambda a, b: a + b)(jnp.ones(3), jnp.ones(4))",
    "jit-unhashable-static": "jax.jit(lambda x: x, static_argnums=0)(jnp.ones(3))",
    "scan-carry-type": (
        "jax.lax.scan(lambda c, x: (c.astype(jnp.int32), x), jnp.ones(()), jnp.ones(3))"
    ),
    "tree-map-dict-keys": "jax.tree.map(lambda a, b: a + b, {'a': 1}, {'b': 2})",
    "random-key-data": "jax.random.normal(jnp.ones(3), (2,))",
    "numpy-broadcast": "np.ones((2, 3)) + np.ones((3, 2))",
    "numpy-reshape": "np.arange(6).reshape(4, 2)",
    "numpy-index-out-of-bounds": "np.ones(3)[5]",
    "numpy-singular-matrix": "np.linalg.inv(np.zeros((2, 2)))",
    "numpy-unknown-dtype": "np.array([1, 2]).astype('foo')",
    "numpy-matmul-core-dimension": "np.matmul(np.ones((2, 3)), np.ones((2, 3)))",
    "optax-update-tree-mismatch": (
        "opt = optax.adam(1e-3)\n"
        "state = opt.init({'w': jnp.ones(2)})\n"
        "opt.update({'w': jnp.ones(2), 'b': jnp.ones(1)}, state)"
    ),
    "optax-apply-updates-shapes": (
        "optax.apply_updates({'w': jnp.ones(2)}, {'w': jnp.ones(3), 'b': 1})"
    ),
    "orbax-restore-missing": "ocp.StandardCheckpointer().restore(TMP + '/missing')",
    "orbax-save-existing": (
        "checkpointer = ocp.StandardCheckpointer()\n"
        "checkpointer.save(TMP + '/step', {'w': jnp.ones(2)})\n"
        "checkpointer.wait_until_finished()\n"
        "checkpointer.save(TMP + '/step', {'w': jnp.ones(2)})"
    ),
    "python-key-error": "{}['params']",
    "python-int-literal": "int('abc')",
    "python-none-operand": "None + 1",
    "python-positional-arguments": "def f(x):\n    return x\nf(1, 2)",
    "python-missing-module": "import flaxx",
    "python-missing-attribute": "class Model:\n    pass\nModel().params",
    "python-recursion": "def f():\n    return f()\nf()",
    "jnp-too-many-indices": "jnp.ones(3)[0, 0]",
    "numpy-squeeze-axis": "np.squeeze(np.ones((2, 3)), axis=0)",
    "python-frozen-dataclass": (
        "import dataclasses\n@dataclasses.dataclass(frozen=True)\nclass Point:\n"
        "    x: int = 0\nPoint().x = 1"
    ),
}


CATALOGUED: dict[str, str] = {
    "jit-numpy-string-array": "jax.messages.NonArrayArgumentToJit",
    "jit-list-of-strings": "jax.messages.NonArrayArgumentToJit",
    "jit-string-argument": "jax.messages.NonArrayArgumentToJit",
    "grad-non-scalar-output": "jax.messages.GradOfNonScalarLoss",
    "matmul-shapes": "jax.messages.DotGeneralFeatureSizeMismatch",
    "jnp-item-assignment": "jax.messages.InPlaceArrayAssignment",
    "vmap-inconsistent-sizes": "jax.messages.VmapInconsistentAxisSizes",
    "scan-carry-type": "jax.messages.ScanCarryTypeChanged",
    "optax-update-tree-mismatch": "jax.messages.PytreeStructureMismatch",
    "optax-apply-updates-shapes": "jax.messages.PytreeStructureMismatch",
    "jit-unhashable-static": "jax.messages.NonHashableStaticArgument",
    "grad-integer-input": "jax.messages.GradOfIntegerInput",
    "random-key-data": "jax.messages.InvalidPRNGKeyData",
}
"""The cases a message entry documents since: each must find that entry, not none."""


def _versions() -> str:
    names = ("jax", "jaxlib", "numpy", "optax", "orbax-checkpoint")
    found = ", ".join(f"{n} {importlib.metadata.version(n)}" for n in names)
    return f"Python {sys.version.split()[0]}, {found}"


def _raised(code: str, scope: dict[str, object]) -> str:
    try:
        exec(code, dict(scope))
    except Exception as error:
        lines = traceback.format_exception_only(error)
        return "".join(lines).strip()
    raise SystemExit(f"the case did not raise:\n{code}")


def _literal(text: str) -> str:
    if "'''" in text or "\r" in text:
        raise SystemExit(f"cannot write as a TOML literal string: {text!r}")
    return f"'''\n{text}'''"


def main() -> None:
    """Run every case and write the file."""
    scope: dict[str, object] = {}
    exec(SETUP, scope)
    with tempfile.TemporaryDirectory() as tmp:
        scope["TMP"] = tmp
        parts = [
            "# Real errors that no catalogue entry documents: `flax-errors explain`",
            '# answers each with "not in the catalogue". Written by collect_negatives.py',
            f"# ({_versions()}); each case's `source` is the code that raised it.",
            "# A case with an `entry` has been documented since, by that message entry,",
            "# which it must find.",
            "",
        ]
        for name, code in CASES.items():
            text = _raised(code, scope).replace(tmp, "/tmp/ckpt")
            parts += [
                "[[negative]]",
                f'id = "{name}"',
                *([f'entry = "{CATALOGUED[name]}"'] if name in CATALOGUED else []),
                f"source = {_literal(code + chr(10))}",
                f"text = {_literal(text + chr(10))}",
                "",
            ]
    OUT.write_text("\n".join(parts), encoding="utf-8")
    print(f"{OUT}: {len(CASES)} errors")


if __name__ == "__main__":
    main()
