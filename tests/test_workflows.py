"""The GitHub Actions workflows run what .ci/run runs, on every stack of noxfile.py.

Each workflow's nox commands are read as GitHub would run them: every matrix
combination (with its ``include`` keys), the step's ``env`` from the matrix, the
``run`` line with those variables in it.
"""

from __future__ import annotations

import ast
import itertools
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
NOXFILE = ast.parse((ROOT / "noxfile.py").read_text("utf-8"))
EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")


def workflow(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((WORKFLOWS / name).read_text("utf-8"))
    return loaded


def combinations(job: dict[str, Any]) -> list[dict[str, Any]]:
    """Every matrix combination of ``job``, as GitHub expands it (one, without a matrix)."""
    matrix = dict(job.get("strategy", {}).get("matrix", {}))
    include = matrix.pop("include", [])
    keys = list(matrix)
    combos = [
        dict(zip(keys, values, strict=True)) for values in itertools.product(*matrix.values())
    ]
    for extra in include:
        matching = [
            c for c in combos if all(c.get(k, v) == v for k, v in extra.items() if k in keys)
        ]
        for combo in matching:
            combo.update(extra)
        if not matching:
            combos.append(dict(extra))
    return combos if combos else [{}]


def evaluate(text: str, matrix: dict[str, Any]) -> str:
    """``${{ matrix.a || matrix.b }}`` with the combination's values, the rest left as is."""

    def value(match: re.Match[str]) -> str:
        for option in match[1].split("||"):
            name = option.strip().removeprefix("matrix.")
            if option.strip().startswith("matrix.") and matrix.get(name) not in (None, ""):
                return str(matrix[name])
        return match[0]

    return EXPRESSION.sub(value, text)


def nox_commands(name: str) -> list[tuple[str, list[str]]]:
    """Each nox command of the workflow ``name``: its job and its arguments after ``nox``."""
    commands = []
    for job_name, job in workflow(name)["jobs"].items():
        for matrix, step in itertools.product(combinations(job), job["steps"]):
            if "run" not in step:
                continue
            env = {key: evaluate(str(v), matrix) for key, v in step.get("env", {}).items()}
            for line in step["run"].replace("\\\n", " ").splitlines():
                words = shlex.split(substitute(line, env))
                if "nox" in words:
                    commands.append((job_name, words[words.index("nox") + 1 :]))
    return commands


def substitute(line: str, env: dict[str, str]) -> str:
    """``line`` with the step's variables in it, as the shell would see them."""
    return re.sub(r"\$(\w+)", lambda match: env.get(match[1], match[0]), line)


def sessions_and_pythons(arguments: list[str]) -> tuple[list[str], str | None]:
    """The sessions of ``nox -s A B [-p PY] [-- ...]`` and the Python, if one is chosen."""
    ours = arguments[: arguments.index("--")] if "--" in arguments else arguments
    sessions, python, current = [], None, ""
    for word in ours:
        if word.startswith("-"):
            current = word
        elif current == "-s":
            sessions.append(word)
        elif current == "-p":
            python = word
    return sessions, python


def ci_run_sessions() -> list[str]:
    lines = (ROOT / ".ci" / "run").read_text("utf-8").splitlines()
    return [
        s
        for line in lines
        if line.startswith("nox ")
        for s in sessions_and_pythons(line.split()[1:])[0]
    ]


def noxfile_sessions() -> set[str]:
    return {
        node.name
        for node in NOXFILE.body
        if isinstance(node, ast.FunctionDef)
        and any("session" in ast.unparse(d) for d in node.decorator_list)
    }


def stacks() -> tuple[str, ...]:
    (value,) = (
        ast.literal_eval(node.value)
        for node in NOXFILE.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "STACKS"
    )
    return tuple(value)


CI = nox_commands("ci.yml")


def base_name(session: str) -> str:
    """``flax_docs`` of ``flax_docs(docs_nnx)``: the function of a parametrized session."""
    return session.partition("(")[0]


def test_ci_runs_every_session_of_ci_run() -> None:
    ran = {base_name(s) for _, arguments in CI for s in sessions_and_pythons(arguments)[0]}
    assert set(ci_run_sessions()) - ran == set(), "add the session to ci.yml's sessions matrix"


def test_each_of_flax_docs_trees_is_a_job_of_its_own() -> None:
    ran = {s for _, arguments in CI for s in sessions_and_pythons(arguments)[0]}
    assert {"flax_docs(docs)", "flax_docs(docs_nnx)"} <= ran


def test_every_session_a_workflow_runs_is_in_the_noxfile() -> None:
    for name in ("ci.yml", "history.yml"):
        for job, arguments in nox_commands(name):
            sessions = {base_name(s) for s in sessions_and_pythons(arguments)[0]}
            assert sessions <= noxfile_sessions(), (name, job)


@pytest.mark.parametrize("session", ["tests", "doctest", "docs_stacks"])
def test_each_stack_of_the_noxfile_is_a_matrix_job(session: str) -> None:
    pythons = [
        python
        for _, arguments in CI
        for sessions, python in [sessions_and_pythons(arguments)]
        if session in sessions
    ]
    assert sorted(map(str, pythons)) == sorted(stacks())


def test_the_history_slices_are_every_part_once() -> None:
    history = workflow("history.yml")["jobs"]["history"]
    parts = [evaluate("${{ matrix.slice }}/${{ matrix.of }}", c) for c in combinations(history)]
    (count,) = {int(part.split("/")[1]) for part in parts}
    assert parts == [f"{k}/{count}" for k in range(1, count + 1)]
    slices = [a[a.index("--slice") + 1] for _, a in nox_commands("history.yml") if "--slice" in a]
    assert slices == parts
    merge = workflow("history.yml")["jobs"]["history-merge"]
    assert merge["needs"] == "history"


@pytest.mark.parametrize("name", ["ci.yml", "history.yml"])
def test_every_action_is_pinned_to_a_commit_with_its_version(name: str) -> None:
    text = (WORKFLOWS / name).read_text("utf-8")
    uses = re.findall(r"uses: (\S+)(.*)", text)
    assert uses
    for action, comment in uses:
        assert re.fullmatch(r"[\w-]+/[\w-]+@[0-9a-f]{40}", action), action
        assert re.fullmatch(r" # v\d+(\.\d+)*", comment), action
    assert workflow(name)["permissions"] == {"contents": "read"}
