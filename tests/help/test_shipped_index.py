"""The index shipped with the package is the one ``flax-errors index`` writes now."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from flax_errors_ext.cli import main
from flax_errors_ext.help import SHIPPED_INDEX

if TYPE_CHECKING:
    import pytest

ROOT = Path(__file__).parents[2]


def test_the_shipped_index_is_written_from_the_catalogue_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the site's conf.py: every module and group it catalogues

    assert main(["index", "-o", str(tmp_path / "index.json")]) == 0

    written = json.loads((tmp_path / "index.json").read_text("utf-8"))
    shipped = json.loads(SHIPPED_INDEX.read_text("utf-8"))
    stale = [e["qualname"] for e in written["entries"] if e not in shipped["entries"]]
    gone = [e["qualname"] for e in shipped["entries"] if e not in written["entries"]]
    assert (stale, gone) == ([], []), (
        "the shipped help index is stale: run `flax-errors index -o "
        "flax_errors_ext/help/index.json` from the repository's root"
    )
    names = {e["qualname"] for e in shipped["entries"]}
    assert {"flax.messages.OptimizerWithoutWrt", "flax.errors.ScopeParamShapeError"} <= names


def test_the_help_gives_the_fix_of_the_cause_the_error_matched() -> None:
    from flax_errors_ext.help import shipped_index
    from flax_errors_ext.model.lookup.help_index import answer

    dropout = (
        'flax.errors.InvalidRngError: Dropout_0 needs PRNG for "dropout" '
        "(https://flax.readthedocs.io/en/latest/api_reference/flax.errors.html"
        "#flax.errors.InvalidRngError)"
    )
    seed = (
        "flax.errors.InvalidRngError: RNGs should be of shape (2,) or PRNGKey in Module MLP, "
        "but rngs are: 0"
    )

    (first, _) = answer(shipped_index(), seed).lines()  # type: ignore[union-attr]
    (second, _) = answer(shipped_index(), dropout).lines()  # type: ignore[union-attr]

    assert "dropout" not in first
    assert second == (
        "help: Pass rngs={'dropout': key} to apply, with a new key for each training step."
    )


def test_bad_examples_in_a_row_and_older_wordings_share_their_causes_fix() -> None:
    from flax_errors_ext.help import shipped_index
    from flax_errors_ext.model.lookup.help_index import answer

    # The GPU's out-of-memory example follows the CPU's and the TPU's; their fix after all three.
    oom = (
        "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: "
        "Out of memory while trying to allocate 9 bytes."
    )
    # JAX 0.9's wording of a (loss, grads) pair taken for the gradients: that cause's fix.
    pair = (
        "ValueError: Expected dict, got "
        "(Array(1., dtype=float32), {'w': Array([1.], dtype=float32)})."
    )

    (oom_fix, _) = answer(shipped_index(), oom).lines()  # type: ignore[union-attr]
    (pair_fix, _) = answer(shipped_index(), pair).lines()  # type: ignore[union-attr]

    assert oom_fix.startswith("help: Make one step fit the device"), oom_fix
    assert pair_fix == "help: Unpack the pair: the loss first, then the gradients."


def test_a_class_named_takes_the_cause_raised_where_the_frames_show() -> None:
    from flax_errors_ext.help import shipped_index
    from flax_errors_ext.model.lookup.help_index import answer

    # A Variable subclass's write under a plain JAX transform: raised in variablelib.py,
    # where the model.eval() cause (a Module's attribute, pytreelib.py) is not.
    paste = (
        "Traceback (most recent call last):\n"
        '  File "/venv/site-packages/flax/nnx/variablelib.py", line 9, in __setattr__\n'
        "    raise errors.TraceContextError(\n"
        "flax.errors.TraceContextError: Cannot mutate QuantStats from a different trace level\n"
    )

    (fix, _) = answer(shipped_index(), paste).lines()  # type: ignore[union-attr]

    assert fix.startswith("help: Pass the model as an argument to nnx.jit"), fix
