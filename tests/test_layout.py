"""The suite's own layout: tests live in their layer's package, and no test module
imports another (shared helpers live in ``tests.support``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
LAYERS = {"games", "ai", "sessions", "storage", "bot", "e2e"}
#: Checks of the repository as a whole stand beside this file, outside the layers.
REPOSITORY_CHECKS = {"test_layout.py", "test_docs.py"}


def imported_modules(source: str, package: str) -> list[str]:
    """Every module ``source`` (of ``package``) imports, by its absolute name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(part for part in (base, node.module) if part)
            found.append(module)
            # ``from tests.bot import test_x`` imports a module too
            found += [f"{module}.{alias.name}" for alias in node.names]
    return found


def package_of(path: Path) -> str:
    """The package a file of the suite belongs to: ``tests.bot`` for tests/bot/x.py."""
    return ".".join(path.relative_to(TESTS.parent).parent.parts)


def is_test_module(name: str) -> bool:
    """A test module or a conftest, whatever package it is imported from."""
    last = name.rsplit(".", 1)[-1]
    return last.startswith("test_") or last == "conftest"


def test_no_test_module_imports_another() -> None:
    offenders = {
        str(path.relative_to(TESTS)): [
            name
            for name in imported_modules(path.read_text(), package_of(path))
            if is_test_module(name)
        ]
        for path in sorted(TESTS.rglob("*.py"))
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_every_test_module_is_in_a_layer() -> None:
    flat = {path.relative_to(TESTS).parts[0] for path in TESTS.rglob("test_*.py")}
    assert flat - LAYERS == REPOSITORY_CHECKS
    assert not list((TESTS / "support").rglob("test_*.py"))


@pytest.mark.parametrize(
    "line",
    [
        "from tests.bot.test_bot_duel import play_out",
        "import tests.ai.test_ai_search",
        "from tests.bot import test_bot_duel",
        "from .test_bot_duel import play_out",
        "from ..bot.test_bot_duel import play_out",
        "from test_bot_golden import GOLDEN",
        "from tests.conftest import RandomComputer",
    ],
)
def test_the_scan_sees_each_way_of_importing_a_test_module(line: str) -> None:
    names = imported_modules(line, "tests.bot")
    assert any(is_test_module(name) for name in names), names


def test_the_scan_lets_helpers_through() -> None:
    names = imported_modules("from tests.support.tables import open_table", "tests.bot")
    assert not any(is_test_module(name) for name in names), names
