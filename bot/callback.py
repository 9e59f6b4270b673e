"""Button data: one typed class per kind of button, packed in at most 64 bytes.

A move button carries ``<session>:<version>:<action>`` — the session id, the
session version the button was drawn for, and the rules action (``QS``,
``bid:3`` …). Every other button is ``<prefix>:<session>[:<arg>…]`` (``0`` when
no session applies): ``join:17``, ``comp:17:easy``, ``opt:17:target:7``.

Each kind is a frozen dataclass whose fields after ``session`` are its
arguments, typed: an ``int`` travels as ASCII digits (:mod:`bot.numbers`), a
``bool`` as ``on``/``off``, ``int | None`` as digits or ``off``, a ``str`` as
a short word. The fields' types are the codec: :func:`unpack` finds the class
by its prefix and hands back ints as ints, so no handler parses a field again;
:func:`kind_of` names the class from the prefix alone, and the handlers are
registered per class (``bot.handlers.common.button``), so the codec and the
router are one table. Telegram clients can be made to send any string as
callback data, so :func:`unpack` trusts nothing: garbled or forged data raises
:class:`BadCallback` (a field may name the refusal its bad value gets instead).
"""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from bot.numbers import ascii_number
from sessions.model import RefusalCode

MAX_BYTES = 64  # Telegram's limit on callback_data

_ACTION = re.compile(r"^[A-Za-z0-9_:+\-.]{1,40}$")
_ARG = re.compile(r"^[A-Za-z0-9_\-]{1,24}$")
#: a field's metadata key: the refusal code a bad value of it gets (not a bad button)
REFUSAL = "refusal"


class BadCallback(ValueError):
    """Callback data that this bot did not produce (garbled, forged or outdated).

    ``refusal``: the refusal code the data gets instead of "bad button" (a field
    that names one: a deal number that is no finished deal's)."""

    def __init__(self, message: str, refusal: RefusalCode | None = None) -> None:
        super().__init__(message)
        self.refusal = refusal


def _checked(data: str) -> str:
    if len(data.encode("utf-8")) > MAX_BYTES:
        raise ValueError(f"callback data over {MAX_BYTES} bytes: {data!r}")
    return data


def _number(text: str) -> int:
    value = ascii_number(text)
    if value is None:
        raise BadCallback(f"not a number: {text!r}")
    return value


def _word(text: str) -> str:
    if not _ARG.match(text):
        raise BadCallback(f"bad argument {text!r}")
    return text


def _switch(text: str) -> bool:
    if text not in ("on", "off"):
        raise BadCallback(f"not on/off: {text!r}")
    return text == "on"


def _number_or_off(text: str) -> int | None:
    return None if text == "off" else _number(text)


def _encode(value: object) -> str:
    """A field's value as it travels: ``on``/``off``, ``off`` for None, digits, a word."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "off"
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"negative number in a button: {value}")
        return str(value)
    if isinstance(value, str) and _ARG.match(value):
        return value
    raise ValueError(f"bad button argument {value!r}")


#: How each field type is read back (its encoding is :func:`_encode`).
_DECODERS: dict[object, Callable[[str], Any]] = {
    int: _number,
    str: _word,
    bool: _switch,
    int | None: _number_or_off,
}


@dataclass(frozen=True)
class _Field:
    name: str
    decode: Callable[[str], Any]
    refusal: RefusalCode | None


_FIELDS: dict[str, tuple[_Field, ...]] = {}


def _fields(kind: type[Verb]) -> tuple[_Field, ...]:
    """The typed arguments of a kind of button (after ``session``), in order."""
    found = _FIELDS.get(kind.prefix)
    if found is None:
        hints = typing.get_type_hints(kind)
        found = _FIELDS[kind.prefix] = tuple(
            _Field(f.name, _DECODERS[hints[f.name]], f.metadata.get(REFUSAL))
            for f in dataclasses.fields(kind)
            if f.name != "session"
        )
    return found


@dataclass(frozen=True)
class Verb:
    """A press on a lobby or menu button; subclasses name their ``prefix``."""

    prefix: ClassVar[str] = ""
    kinds: ClassVar[dict[str, type[Verb]]] = {}
    #: a button only a group table's own messages in the group carry (never a private one)
    table_only: ClassVar[bool] = False

    session: int

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if cls.prefix:
            if cls.prefix in Verb.kinds:
                raise TypeError(f"two kinds of button with prefix {cls.prefix!r}")
            Verb.kinds[cls.prefix] = cls

    @classmethod
    def _arguments(cls) -> list[str]:
        return [f.name for f in _fields(cls)]

    def pack(self) -> str:
        """The callback data; ValueError if an argument is unfit or it would not fit."""
        args = [_encode(getattr(self, f.name)) for f in _fields(type(self))]
        return _checked(":".join([self.prefix, _encode(self.session), *args]))

    @classmethod
    def unpack(cls, parts: list[str]) -> Self:
        """The button from the parts after the prefix (BadCallback if they do not fit)."""
        fields = _fields(cls)
        if len(parts) != len(fields) + 1:
            raise BadCallback(f"wrong arity for {cls.prefix!r}")
        values: list[Any] = []
        for typed, text in zip(fields, parts[1:], strict=True):
            try:
                values.append(typed.decode(text))
            except BadCallback as error:
                raise BadCallback(f"{cls.prefix}: {error}", typed.refusal) from error
        return cls(_number(parts[0]), *values)


@dataclass(frozen=True)
class Move:
    """A press on a move button: play ``action`` at ``session`` as of ``version``."""

    session: int
    version: int
    action: str

    def pack(self) -> str:
        """The callback data; ValueError if the action is unfit or it would not fit."""
        if not _ACTION.match(self.action):
            raise ValueError(f"not an action: {self.action!r}")
        return _checked(f"{_encode(self.session)}:{_encode(self.version)}:{self.action}")


@dataclass(frozen=True)
class NewGame(Verb):
    """A game picked from the /new menu (session 0)."""

    prefix = "new"
    game: str


@dataclass(frozen=True)
class DailyGame(Verb):
    """A game picked from the /daily menu (session 0): play its deal of the day."""

    prefix = "daily"
    game: str


@dataclass(frozen=True)
class Rules(Verb):
    """A game picked from the /rules menu (session 0)."""

    prefix = "rules"
    game: str


@dataclass(frozen=True)
class Join(Verb):
    """Join the lobby."""

    prefix = "join"
    table_only = True


@dataclass(frozen=True)
class Computers(Verb):
    """Show the computer levels ("Add computer")."""

    prefix = "comps"
    table_only = True


@dataclass(frozen=True)
class VersusComputer(Verb):
    """Private duel: play the computer (shows the levels)."""

    prefix = "vs"


@dataclass(frozen=True)
class AddComputer(Verb):
    """A computer level picked."""

    prefix = "comp"
    level: str


@dataclass(frozen=True)
class Settings(Verb):
    """Open the table settings."""

    prefix = "sets"
    table_only = True


@dataclass(frozen=True)
class SetOption(Verb):
    """Set a table option to a value (as the schema's button encodes it)."""

    prefix = "opt"
    name: str
    value: str


@dataclass(frozen=True)
class TypeValue(Verb):
    """Type a value for a setting (a number option's name, or ``timer`` in minutes)."""

    prefix = "type"
    name: str


@dataclass(frozen=True)
class SetTimer(Verb):
    """Set the turn timer (seconds, or ``off``)."""

    prefix = "timer"
    value: int | None


@dataclass(frozen=True)
class Back(Verb):
    """Back from a menu to the lobby."""

    prefix = "back"


@dataclass(frozen=True)
class Start(Verb):
    """Deal the first hand."""

    prefix = "start"
    table_only = True


@dataclass(frozen=True)
class Cancel(Verb):
    """Cancel the table."""

    prefix = "cancel"
    table_only = True


@dataclass(frozen=True)
class Leave(Verb):
    """Leave the table."""

    prefix = "leave"
    table_only = True


@dataclass(frozen=True)
class Reclaim(Verb):
    """Take back the seat a computer plays for you."""

    prefix = "back2"


@dataclass(frozen=True)
class ShowHand(Verb):
    """Show my hand (ephemeral in a group)."""

    prefix = "hand"
    table_only = True


@dataclass(frozen=True)
class Again(Verb):
    """Play again: a rematch."""

    prefix = "again"
    table_only = True


@dataclass(frozen=True)
class Score(Verb):
    """The chat's tally for this game."""

    prefix = "score"
    table_only = True


@dataclass(frozen=True)
class Invite(Verb):
    """Private duel: make an invite link."""

    prefix = "invite"


@dataclass(frozen=True)
class Language(Verb):
    """Pick a language (session 0)."""

    prefix = "lang"
    lang: str


@dataclass(frozen=True)
class DealButton(Verb):
    """📜 Deal: the record of a finished deal (``deal``: its number, 0 first)."""

    prefix = "deal"
    deal: int = field(metadata={REFUSAL: "deal_not_finished"})


@dataclass(frozen=True)
class ReviewButton(Verb):
    """📈 Review: the strong computer's look at the presser's decisions in a finished
    deal (``deal``: its number, 0 first), on that deal's 📜 record."""

    prefix = "review"
    deal: int = field(metadata={REFUSAL: "deal_not_finished"})


@dataclass(frozen=True)
class CompareButton(Verb):
    """⚖️ Compare: the presser's decisions in a finished daily deal (``deal``: its
    number, 0 first) beside the day's best other player's and the strong computer's."""

    prefix = "cmp"
    deal: int = field(metadata={REFUSAL: "deal_not_finished"})


@dataclass(frozen=True)
class MatchRecordButton(Verb):
    """📄 Match record: the text document of a finished match."""

    prefix = "rec"
    table_only = True


@dataclass(frozen=True)
class HintButton(Verb):
    """💡 Hint: the move the strong computer would make for the presser."""

    prefix = "hint"


@dataclass(frozen=True)
class HintsSetting(Verb):
    """The table's Hints setting (on or off), in the lobby."""

    prefix = "hints"
    value: bool = field(metadata={REFUSAL: "bad_option"})


@dataclass(frozen=True)
class TakeBack(Verb):
    """↩️ Take back: undo my last move and the computers' replies (against computers)."""

    prefix = "undo"


Press = Move | Verb


def kind_of(data: object) -> type[Press] | None:
    """The kind of button ``data`` is, from its prefix alone (None: not one of ours)."""
    if not isinstance(data, str) or not data:
        return None
    head = data.partition(":")[0]
    if head[:1] in "0123456789" and head:
        return Move
    return Verb.kinds.get(head)


def unpack(data: str | None) -> Press:
    """Decode button data; raise :class:`BadCallback` if it is not ours."""
    if not data or len(data.encode("utf-8")) > MAX_BYTES:
        raise BadCallback("empty or oversized callback data")
    kind = kind_of(data)
    if kind is None:
        raise BadCallback(f"unknown button in {data!r}")
    head, _, rest = data.partition(":")
    if kind is Move:
        version, _, action = rest.partition(":")
        if not _ACTION.match(action):
            raise BadCallback(f"bad action in {data!r}")
        return Move(_number(head), _number(version), action)
    assert issubclass(kind, Verb)
    return kind.unpack(rest.split(":") if rest else [])
