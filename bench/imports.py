"""Import graph of the project's packages: its size, and every import circle.

``python bench/imports.py [ROOT]`` reads the sources under ``bot``, ``sessions``,
``storage`` and ``games`` (no import is run) and prints the number of modules
and of import edges between them, then the circles twice: among the imports
at module level, and among all of them (a deferred import inside a function,
or under ``TYPE_CHECKING``, still ties the two modules together). ``from
package import submodule`` counts as an import of the submodule. Last, each
``bot`` module's imports within ``bot`` (``*``: deferred).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGES = ("bot", "sessions", "storage", "games")

#: module → the modules it imports, each with True where the import is deferred
Graph = dict[str, set[tuple[str, bool]]]


def modules(root: Path) -> dict[str, Path]:
    """Every module of the packages, by dotted name."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imports(root: Path) -> Graph:
    """Who imports whom among the project's modules."""
    known = modules(root)
    graph: Graph = {name: set() for name in known}
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                subs = [f"{node.module}.{alias.name}" for alias in node.names]
                targets = [t for t in subs if t in known] or [node.module]
            else:
                continue
            for target in targets:
                if target in known and target != name:
                    graph[name].add((target, id(node) not in top))
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in graph[module]:
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def main() -> None:
    """Print the graph's size, its circles and the ``bot`` modules' imports."""
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    graph = imports(root)
    every = {m: {t for t, _ in targets} for m, targets in graph.items()}
    top = {m: {t for t, deferred in targets if not deferred} for m, targets in graph.items()}
    print(f"modules {len(graph)}, import edges {sum(len(t) for t in every.values())}")
    for label, edges in (("at module level", top), ("with deferred imports", every)):
        found = circles(edges)
        print(f"import circles {label}: {len(found)}")
        for group in found:
            print("   ", " <-> ".join(group))
    for module in sorted(graph):
        if module.startswith("bot.") and module.count(".") == 1:
            inside = sorted(t + ("*" if d else "") for t, d in graph[module] if t.startswith("bot"))
            print(f"  {module} -> {', '.join(inside)}")


if __name__ == "__main__":
    main()
