"""The runtime hook: JitPytreeError where Modules meet JAX transformations, nothing else."""

from __future__ import annotations

import copy
import functools
import pickle
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, cast

import flax
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx
from jax._src import core

from flax_errors_ext import install, uninstall
from flax_errors_ext.errors import JitPytreeError
from flax_errors_ext.layout import BASE_URL_ENV_VAR, FLAX_BASE_URL, entry_url

QUALNAME = "flax_errors_ext.errors.JitPytreeError"
X = jnp.ones((1, 3))


class Foo(nn.Module):
    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        return nn.Dense(2)(x)


MODELS: dict[str, Callable[[], nn.Module]] = {"compact": Foo, "dense": lambda: nn.Dense(2)}


@pytest.fixture(autouse=True)
def hook() -> Iterator[None]:
    install()
    yield
    uninstall()


@pytest.fixture(params=sorted(MODELS))
def model(request: pytest.FixtureRequest) -> nn.Module:
    return MODELS[request.param]()


@functools.cache
def _variables(model: nn.Module) -> Any:
    return model.init(jax.random.key(0), X)


def _apply(model: nn.Module, variables: Any, x: jax.Array) -> jax.Array:
    return cast("jax.Array", model.apply(variables, x))


def _loss(model: nn.Module, variables: Any, x: jax.Array) -> jax.Array:
    return _apply(model, variables, x).sum()


def _apply_batch(batch: dict[str, Any]) -> jax.Array:
    return _apply(batch["model"], batch["variables"], batch["x"])


def _apply_pair(pair: tuple[nn.Module, Any]) -> jax.Array:
    return _apply(pair[0], pair[1], X)


# --- Where a Module meets a transformation: each raises JitPytreeError. ---

Call = Callable[[nn.Module, Any], object]
ERRORS: dict[str, tuple[Call, str | None]] = {
    # name: (the failing call, the argument path JAX names in the error)
    "jit_positional": (lambda m, v: jax.jit(_apply)(m, v, X), "model"),
    "jit_keyword": (lambda m, v: jax.jit(_apply)(variables=v, x=X, model=m), "model"),
    "jit_dict": (
        lambda m, v: jax.jit(_apply_batch)({"model": m, "variables": v, "x": X}),
        "batch['model']",
    ),
    "jit_tuple": (lambda m, v: jax.jit(_apply_pair)((m, v)), "pair[0]"),
    "jit_returned": (lambda m, v: jax.jit(lambda x: m)(X), None),
    "grad": (lambda m, v: jax.grad(_loss)(m, v, X), None),
    "value_and_grad": (lambda m, v: jax.value_and_grad(_loss)(m, v, X), None),
    "vmap_mapped": (lambda m, v: jax.vmap(_apply, in_axes=(0, None, 0))(m, v, X), "model"),
    "eval_shape": (lambda m, v: jax.eval_shape(_apply, m, v, X), "model"),
    "scan_carry": (lambda m, v: jax.lax.scan(lambda c, _: (c, None), m, None, length=2), None),
    "cond_operand": (lambda m, v: jax.lax.cond(True, lambda _: X, lambda _: X, m), None),
}


def _raise(call: Call, model: nn.Module) -> BaseException:
    with pytest.raises(Exception) as info:  # noqa: PT011 - the exact class is asserted by callers
        call(model, _variables(model))
    return info.value


@pytest.mark.parametrize("scenario", sorted(ERRORS))
def test_raises_jit_pytree_error(scenario: str, model: nn.Module) -> None:
    call, path = ERRORS[scenario]
    error = _raise(call, model)
    assert type(error) is JitPytreeError
    message = str(error)
    assert f"Linen Module {type(model).__name__} " in message
    assert message.endswith(f"See {entry_url(QUALNAME)}")
    assert entry_url(QUALNAME).endswith(f"#{QUALNAME}")
    assert FLAX_BASE_URL not in message
    assert error.module_type is type(model)
    assert error.arg_path == path
    if path is None:
        assert "as argument" not in message
    else:
        assert f"as argument `{path}`," in message


def test_message_gives_the_fixes() -> None:
    message = str(JitPytreeError(Foo, "model"))
    for fix in ("static_argnums", "static_argnames", "functools.partial", "model.apply", "nn.jit"):
        assert fix in message


@pytest.mark.parametrize("scenario", ["jit_positional", "grad", "vmap_mapped", "scan_carry"])
def test_uninstall_brings_back_jax_errors(scenario: str, model: nn.Module) -> None:
    call, _ = ERRORS[scenario]
    uninstall()
    before = type(_raise(call, model))
    install()
    assert type(_raise(call, model)) is JitPytreeError
    uninstall()
    assert type(_raise(call, model)) is before
    assert before is not JitPytreeError


# --- What must keep working: the same result with the hook as without it. ---


def _same_with_and_without_hook(compute: Callable[[], Any]) -> None:
    hooked = compute()
    uninstall()
    plain = compute()
    # tree.map also fails when the two trees differ in structure.
    jax.tree.map(np.testing.assert_array_equal, hooked, plain)


@flax.struct.dataclass
class Holder:
    model: nn.Module = flax.struct.field(pytree_node=False)  # type: ignore[no-untyped-call]
    variables: Any = None


WITH_MODEL: dict[str, Call] = {
    "static_argnums": lambda m, v: jax.jit(_apply, static_argnums=0)(m, v, X),
    "static_argnames": lambda m, v: jax.jit(_apply, static_argnames="model")(
        model=m, variables=v, x=X
    ),
    "partial_closure": lambda m, v: jax.jit(functools.partial(_apply, m))(v, X),
    "jit_model_apply": lambda m, v: jax.jit(m.apply)(v, X),
    "vmap_unmapped": lambda m, v: jax.vmap(_apply, in_axes=(None, None, 0))(
        m, v, jnp.ones((4, 1, 3))
    ),
    "grad_not_wrt_module": lambda m, v: jax.grad(_loss, argnums=1)(m, v, X),
    "struct_static_field": lambda m, v: jax.jit(lambda h: _apply(h.model, h.variables, X))(
        Holder(m, v)
    ),
}


@pytest.mark.parametrize("scenario", sorted(WITH_MODEL))
def test_keeps_working_with_model(scenario: str, model: nn.Module) -> None:
    variables = _variables(model)
    _same_with_and_without_hook(lambda: WITH_MODEL[scenario](model, variables))


class AliasedPair(nn.Module):
    """Flax's test_compact_aliasing_collision."""

    m1: nn.Module
    m2: nn.Module

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        return self.m2(self.m1(x))  # type: ignore[no-any-return]


class JitAliasing(nn.Module):
    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        dense = nn.Dense(2)
        return nn.jit(AliasedPair)(dense, dense)(x)


class Partial(flax.struct.PyTreeNode):  # type: ignore[no-untyped-call]
    """The closure of Flax's module-lifecycle notes: a pytree that carries a Module."""

    fn: Callable[..., Any] = flax.struct.field(pytree_node=False)  # type: ignore[no-untyped-call]
    args: Iterable[Any]

    def __call__(self, *args: Any) -> Any:
        return self.fn(*(tuple(self.args) + args))


class LifecycleClosure(nn.Module):
    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        dense = nn.Dense(x.shape[-1])
        vmap_inner = nn.vmap(
            LifecycleClosure.inner,
            in_axes=0,
            variable_axes={"params": 0},
            split_rngs={"params": True},
        )
        return vmap_inner(self, x, Partial(lambda mdl, x: mdl(x) + 1, [dense]))

    def inner(self, x: jax.Array, fn: Partial) -> jax.Array:
        for _ in range(3):
            x = fn(x)
        return x


class ScanCell(nn.Module):
    @nn.compact
    def __call__(self, carry: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        carry = nn.Dense(2)(carry) + x
        return carry, carry


class Scanned(nn.Module):
    @nn.compact
    def __call__(self, xs: jax.Array) -> tuple[jax.Array, jax.Array]:
        scan = nn.scan(ScanCell, variable_broadcast="params", split_rngs={"params": False})
        return scan()(jnp.zeros((2,)), xs)


def _init_and_apply(module: nn.Module, x: jax.Array) -> Any:
    variables = module.init(jax.random.key(0), x)
    return variables, module.apply(variables, x)


def _nnx_linear(transform: Callable[..., Any]) -> Any:
    layer = nnx.Linear(3, 2, rngs=nnx.Rngs(0))
    return transform(lambda m, x: m(x))(layer, X)


WITHOUT_MODEL: dict[str, Callable[[], Any]] = {
    "nn_jit_aliasing": lambda: _init_and_apply(JitAliasing(), jnp.zeros((2, 2))),
    "nn_vmap_closure": lambda: _init_and_apply(LifecycleClosure(), jnp.ones((3, 2))),
    "nn_scan": lambda: _init_and_apply(Scanned(), jnp.ones((3, 2))),
    "nn_remat": lambda: _init_and_apply(nn.remat(Foo)(), X),
    "nn_vmap": lambda: _init_and_apply(
        nn.vmap(nn.Dense, variable_axes={"params": 0}, split_rngs={"params": True})(2),
        jnp.ones((4, 3)),
    ),
    "nnx_jax_jit": lambda: _nnx_linear(jax.jit),
    "nnx_jit": lambda: _nnx_linear(nnx.jit),
}


@pytest.mark.parametrize("scenario", sorted(WITHOUT_MODEL))
def test_keeps_working(scenario: str) -> None:
    _same_with_and_without_hook(WITHOUT_MODEL[scenario])


def test_lifecycle_closure_kernel_is_vmapped() -> None:
    variables, _ = _init_and_apply(LifecycleClosure(), jnp.ones((3, 2)))
    assert variables["params"]["Dense_0"]["kernel"].shape == (3, 2, 2)


def test_module_is_a_pytree_leaf(model: nn.Module) -> None:
    tree = [model, 1]
    assert jax.tree_util.tree_leaves(tree) == tree
    assert jax.tree_util.tree_map(lambda leaf: leaf, tree)[0] is model


def test_pickle_and_deepcopy_of_modules() -> None:
    model = Foo()
    assert pickle.loads(pickle.dumps(model)) == model
    assert copy.deepcopy(model) == model
    dense = nn.Dense(2)
    assert copy.deepcopy(dense) == dense


def test_debug_callback_takes_module_as_static_value(model: nn.Module) -> None:
    # jax.debug reads "not an array" (a TypeError) as "pass it through unchanged".
    seen: list[object] = []
    jax.jit(lambda x: (jax.debug.callback(seen.append, model), x)[1])(X)
    jax.effects_barrier()  # type: ignore[no-untyped-call]
    assert seen == [model]


def _vmap_size_mismatch(model: nn.Module) -> object:
    # vmap describes every argument's type in this error, the unmapped module included.
    return jax.vmap(lambda m, a, b: a, in_axes=(None, 0, 0))(model, jnp.ones(3), jnp.ones(4))


def _index_with_module(model: nn.Module) -> object:
    # jnp indexing first asks whether the index is a boolean array.
    return X[model]


@pytest.mark.parametrize("misuse", [_vmap_size_mismatch, _index_with_module])
def test_errors_that_only_probe_a_module_are_unchanged(
    misuse: Callable[[nn.Module], object], model: nn.Module
) -> None:
    with pytest.raises(Exception) as hooked:  # noqa: PT011 - compared with JAX's own below
        misuse(model)
    uninstall()
    with pytest.raises(Exception) as plain:  # noqa: PT011
        misuse(model)
    assert type(hooked.value) is type(plain.value)
    assert str(hooked.value) == str(plain.value)


# --- Installing and uninstalling. ---


def test_install_is_idempotent() -> None:
    handler = core.pytype_aval_mappings[nn.Module]
    install()
    assert core.pytype_aval_mappings[nn.Module] is handler
    uninstall()
    assert nn.Module not in core.pytype_aval_mappings
    uninstall()
    assert nn.Module not in core.pytype_aval_mappings


def test_uninstall_restores_the_exact_table() -> None:
    uninstall()
    before = dict(core.pytype_aval_mappings)
    install()
    uninstall()
    assert core.pytype_aval_mappings == before


def test_uninstall_restores_a_prior_entry() -> None:
    uninstall()

    def prior(x: object) -> core.AbstractValue:
        raise NotImplementedError

    core.pytype_aval_mappings[nn.Module] = prior
    try:
        install()
        assert core.pytype_aval_mappings[nn.Module] is not prior
        uninstall()
        assert core.pytype_aval_mappings[nn.Module] is prior
    finally:
        del core.pytype_aval_mappings[nn.Module]


def test_uninstall_leaves_a_later_entry_alone() -> None:
    def later(x: object) -> core.AbstractValue:
        raise NotImplementedError

    core.pytype_aval_mappings[nn.Module] = later
    try:
        uninstall()
        assert core.pytype_aval_mappings[nn.Module] is later
    finally:
        del core.pytype_aval_mappings[nn.Module]


def test_import_alone_changes_nothing() -> None:
    code = (
        "import flax_errors_ext, flax.linen, jax._src.core as core; "
        "assert flax.linen.Module not in core.pytype_aval_mappings"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# --- The error itself. ---


def test_base_url_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BASE_URL_ENV_VAR, "https://example.org/preview/")
    error = _raise(ERRORS["jit_positional"][0], Foo())
    assert str(error).endswith(
        f"See https://example.org/preview/api_reference/flax_errors_ext.errors.html#{QUALNAME}"
    )


def _round_trip(error: JitPytreeError) -> JitPytreeError:
    copied = pickle.loads(pickle.dumps(error))
    assert type(copied) is JitPytreeError
    assert str(copied) == str(error)
    assert copied.arg_path == error.arg_path
    return copied


def test_pickle_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    error = JitPytreeError(Foo, "model")
    monkeypatch.setenv(BASE_URL_ENV_VAR, "https://example.org")  # the message must not change
    assert _round_trip(error).module_type is Foo


def test_pickle_round_trip_of_a_local_module_class() -> None:
    class Local(nn.Module):
        pass

    assert _round_trip(JitPytreeError(Local)).module_type == "Local"


def test_pickle_round_trip_of_a_raised_error() -> None:
    error = _raise(ERRORS["jit_dict"][0], Foo())
    assert isinstance(error, JitPytreeError)
    _round_trip(error)
