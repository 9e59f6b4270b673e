"""Localized text: Fluent catalogs under ``bot/locales/<lang>/*.ftl``.

Every string a user sees comes from a catalog; code only names message ids.
Russian plurals ("1 взятка, 2 взятки, 5 взяток") are Fluent select
expressions on CLDR plural categories. A message missing from a language falls
back to English, then to its id, so a gap shows up as a readable id rather than
a crash.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from fluent.runtime import FluentBundle, FluentResource

LANGUAGES = ("en", "ru")
DEFAULT_LANGUAGE = "en"
LOCALES = Path(__file__).with_name("locales")


def language_from_code(code: str | None) -> str:
    """The catalog language for a Telegram ``language_code``: ru for ru*, else en."""
    return "ru" if code and code.lower().startswith("ru") else "en"


class Catalog:
    """All messages of every language, loaded once from ``.ftl`` files."""

    def __init__(self, root: Path = LOCALES) -> None:
        self._bundles: dict[str, FluentBundle] = {}
        for lang in LANGUAGES:
            bundle = FluentBundle([lang], use_isolating=False)
            for path in sorted((root / lang).glob("*.ftl")):
                bundle.add_resource(FluentResource(path.read_text(encoding="utf-8")))
            self._bundles[lang] = bundle

    def has(self, lang: str, key: str) -> bool:
        """True if ``lang`` defines message ``key`` itself (no fallback)."""
        bundle = self._bundles.get(lang)
        return bundle is not None and bundle.has_message(key)

    def text(self, lang: str, key: str, **args: Any) -> str:
        """Message ``key`` in ``lang`` with ``args`` filled in."""
        for candidate in (lang, DEFAULT_LANGUAGE):
            bundle = self._bundles.get(candidate)
            if bundle is not None and bundle.has_message(key):
                message = bundle.get_message(key)
                if message.value is None:
                    break
                text, errors = bundle.format_pattern(message.value, args)
                if errors:
                    raise KeyError(f"{candidate}/{key}: {errors[0]}")
                return str(text)
        return key

    def keys(self, lang: str) -> set[str]:
        """Every message id defined in ``lang``."""
        return set(self._bundles[lang]._messages)


@lru_cache(maxsize=1)
def catalog() -> Catalog:
    """The shared catalog of the package's own locales."""
    return Catalog()


def t(lang: str, key: str, **args: Any) -> str:
    """Shortcut: message ``key`` in ``lang`` from the shared catalog."""
    if not args:
        return _formatted(lang, key, ())
    try:
        # the catalog never changes, so a text is a function of its arguments; the
        # type is part of the key because True == 1 but Fluent shows them differently
        return _formatted(lang, key, tuple((k, type(v), v) for k, v in sorted(args.items())))
    except TypeError:  # an unhashable argument: format it afresh
        return catalog().text(lang, key, **args)


@lru_cache(maxsize=4096)
def _formatted(lang: str, key: str, args: tuple[tuple[str, type, Any], ...]) -> str:
    """Message ``key`` in ``lang`` with ``args`` (name, type, value), remembered."""
    return catalog().text(lang, key, **{name: value for name, _, value in args})


def t_or(lang: str, key: str, fallback: str, **args: Any) -> str:
    """Message ``key`` if any catalog defines it, else ``fallback`` as given."""
    cat = catalog()
    if cat.has(lang, key) or cat.has(DEFAULT_LANGUAGE, key):
        return cat.text(lang, key, **args)
    return fallback
