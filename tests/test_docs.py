"""The docs stay true to the repository: the files they name exist, and every
``docs/rules.md#…`` section the code and tests cite is a heading of that page."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from games import REGISTRY

#: The repository: the nearest folder above this file that holds pyproject.toml.
ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").exists())
RULES = ROOT / "docs" / "rules.md"
#: The documentation pages: the README, every page under docs/ and the benchmarks' notes.
PAGES = sorted([ROOT / "README.md", ROOT / "bench" / "README.md", *(ROOT / "docs").glob("*.md")])
#: Where code, tests and docs live (and may cite the rules).
SOURCES = ("bot", "sessions", "storage", "games", "tests", "bench", "docs")
SOURCE_SUFFIXES = {".py", ".md", ".ftl"}
#: A path into the repository: one of its top-level folders, then a file or folder name.
#: ``<game>``-style placeholders stand for any name.
PATH = re.compile(
    r"(?<![\w/.~:-])((?:bot|sessions|storage|games|tests|bench|docs|\.ci)/[\w.*<>/-]*[\w*>/])"
)
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
MODULE_RUN = re.compile(r"python -m ([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)")
CITATION = re.compile(r"docs/rules\.md#([\w-]+)")
#: A ticket named in code or docs: "(#19)", "(#19;", "Issue #18", a catalog's "# --- #20".
TICKET = re.compile(r"\(#\d+[);]|\b[Ii]ssue #\d+|^#+ -+ #\d+", re.MULTILINE)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading anchor of a Markdown page (code blocks skipped)."""
    found: set[str] = set()
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (match := re.match(r"#{1,6} (.+)", line)):
            found.add(slug(match.group(1)))
    return found


def source_files() -> list[Path]:
    """Every code, test, catalog and doc file of the repository, and the README."""
    files = [ROOT / "README.md"]
    for folder in SOURCES:
        files += [
            path
            for path in sorted((ROOT / folder).rglob("*"))
            if path.suffix in SOURCE_SUFFIXES and "__pycache__" not in path.parts
        ]
    return files


def exists(name: str, base: Path) -> bool:
    """True if ``name`` (placeholders and globs allowed) is a file or folder under ``base``."""
    pattern = re.sub(r"<[^>]*>", "*", name).rstrip("/")
    if not any(char in pattern for char in "*?["):
        return (base / pattern).exists()
    return any(base.glob(pattern))


def runnable(module: str) -> bool:
    """True if ``python -m module`` finds the module."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def test_slug_is_githubs_anchor() -> None:
    assert slug("Eleven: scoring") == "eleven-scoring"
    assert slug("Two-Ten-Jack: trumps and speculation") == "two-ten-jack-trumps-and-speculation"
    assert slug("Eleven: the book's sample game") == "eleven-the-books-sample-game"
    assert slug("The rules API (`games/`)") == "the-rules-api-games"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_file_a_page_names_exists(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    missing = [name for name in PATH.findall(text) if not exists(name, ROOT)]
    missing += [
        target
        for target in LINK.findall(text)
        if "://" not in target and not exists(target, page.parent)
    ]
    missing += [module for module in MODULE_RUN.findall(text) if not runnable(module)]
    assert not missing, f"{page.relative_to(ROOT)} names what the repository lacks: {missing}"


def test_every_cited_rules_section_exists() -> None:
    sections = anchors(RULES)
    cited: dict[str, list[str]] = {}
    for path in source_files():
        for anchor in CITATION.findall(path.read_text(encoding="utf-8")):
            cited.setdefault(anchor, []).append(str(path.relative_to(ROOT)))
    assert cited, "nothing cites docs/rules.md"
    unknown = {anchor: files for anchor, files in cited.items() if anchor not in sections}
    assert not unknown, f"cited sections docs/rules.md lacks: {unknown}"


def test_the_rules_page_links_only_its_own_sections() -> None:
    text = RULES.read_text(encoding="utf-8")
    links = re.findall(r"\]\(#([\w-]+)\)", text)
    assert links
    assert set(links) <= anchors(RULES)


def test_every_game_has_a_section() -> None:
    sections = anchors(RULES)
    for game_id in REGISTRY:
        assert game_id.replace("_", "-") in sections, game_id


def test_nothing_cites_a_file_outside_the_repository_or_a_ticket() -> None:
    offenders = []
    for path in source_files():
        if path == Path(__file__).resolve():
            continue
        text = path.read_text(encoding="utf-8")
        if "RULES.md" in text or TICKET.search(text):
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, f"cite RULES.md or a ticket number: {offenders}"


def option_rows(game_id: str) -> dict[str, tuple[str, str]]:
    """The rows of a game's options table on the rules page: name → (default, values)."""
    title = game_id.replace("_", "-")
    text = RULES.read_text(encoding="utf-8")
    sections = re.split(r"^### ", text, flags=re.MULTILINE)
    (section,) = [s for s in sections if slug(s.splitlines()[0]) == f"{title}-options"]
    rows: dict[str, tuple[str, str]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split(" | ")]
        if line.startswith("| `") and len(cells) == 3:
            for name in re.findall(r"`(\w+)`", cells[0].split(" — ")[0]):
                rows[name] = (cells[1], re.sub(r"\s*\(.*\)$", "", cells[2]))
    return rows


def shown(value: object) -> str:
    """An option value as the rules page writes it: on/off, a number, a `code`."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value) if isinstance(value, int) else f"`{value}`"


@pytest.mark.parametrize("game_id", sorted(REGISTRY))
def test_the_rules_page_lists_every_option_as_the_game_has_it(game_id: str) -> None:
    rows = option_rows(game_id)
    schema = {option.name: option for option in REGISTRY[game_id].options_schema}
    assert set(rows) == set(schema)
    for name, (default, values) in rows.items():
        option = schema[name]
        assert default == shown(option.default), name
        if isinstance(option.default, bool):
            assert values == "on, off", name
            continue
        choices, _, span = values.partition(", or any of ")
        assert choices.split(", ") == [shown(choice) for choice in option.choices], name
        bounds = (option.low, option.high) if option.low is not None else None
        assert (tuple(int(n) for n in span.split("–")) if span else None) == bounds, name
