"""What the runtime hook costs on the hot path: dispatching a compiled jitted call.

The hook only adds an entry for ``flax.linen.Module`` to a table that JAX consults
for values it does not recognise, so calls on arrays should not notice it. This
times an already-compiled :func:`jax.jit` call on array arguments with and without
:func:`flax_errors_ext.install`. Each round alternates the two states in short
blocks of calls, so that load from the rest of the machine hits both alike, and
keeps each state's best block; ``guard`` is the median over rounds of the round's
``with / without`` ratio (target: at most 1.02).

Run it as ``python benchmarks/bench_guard.py``; other benchmarks call :func:`main`.
"""

from __future__ import annotations

import statistics
import time
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp

import flax_errors_ext

if TYPE_CHECKING:
    from collections.abc import Callable

TARGET = 1.02
ROUNDS = 15
BLOCKS = 10
CALLS = 500
WARMUP_CALLS = 200


def _time_block(call: Callable[[], jax.Array], calls: int, *, hooked: bool) -> float:
    """Seconds per call over ``calls`` back-to-back calls in the given state."""
    if hooked:
        flax_errors_ext.install()
    try:
        start = time.perf_counter()
        for _ in range(calls - 1):
            call()
        call().block_until_ready()
        return (time.perf_counter() - start) / calls
    finally:
        flax_errors_ext.uninstall()


def _round(call: Callable[[], jax.Array], calls: int) -> dict[bool, float]:
    """Both states' cost in one round: the best of BLOCKS short, alternating blocks each.

    Switching state every few hundred calls lets both states see the same bursts of
    load from the rest of the machine, and the best block is the least disturbed one.
    """
    best = {False: float("inf"), True: float("inf")}
    for block in range(BLOCKS):
        for hooked in (False, True) if block % 2 == 0 else (True, False):
            best[hooked] = min(best[hooked], _time_block(call, calls, hooked=hooked))
    return best


def main(rounds: int = ROUNDS, calls: int = CALLS) -> float:
    """Print the timing table and return ``guard``, the median with/without ratio."""
    add = jax.jit(lambda a, b: a * b + a)
    a, b = jnp.ones((8,)), jnp.full((8,), 2.0)

    def call() -> jax.Array:
        out: jax.Array = add(a, b)
        return out

    for _ in range(WARMUP_CALLS):  # compiles, then settles caches
        call().block_until_ready()
    samples: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(rounds):
        for hooked, seconds in _round(call, calls).items():
            samples[hooked].append(seconds)
    guard = statistics.median(w / wo for w, wo in zip(samples[True], samples[False], strict=True))
    _print_table(samples, rounds, calls, guard)
    return guard


def _print_table(samples: dict[bool, list[float]], rounds: int, calls: int, guard: float) -> None:
    print(
        "Dispatch of a compiled jax.jit call on arrays "
        f"({rounds} rounds; per state, best of {BLOCKS} alternating blocks of {calls} calls)"
    )
    print(f"{'':20} {'median':>10} {'min':>10} {'max':>10}   (us per call)")
    for hooked, label in ((False, "without install()"), (True, "with install()")):
        times = [t * 1e6 for t in samples[hooked]]
        print(f"{label:20} {statistics.median(times):10.3f} {min(times):10.3f} {max(times):10.3f}")
    verdict = "ok" if guard <= TARGET else "ABOVE TARGET"
    print(
        f"guard = median of per-round with / without = {guard:.4f}"
        f"  (target <= {TARGET}: {verdict})"
    )


if __name__ == "__main__":
    main()
