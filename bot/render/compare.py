"""⚖️ Compare a daily deal on screen: the button on its 📜 record, and the comparison.

Pure drawing of :class:`sessions.compare.Comparison`: who the rival is, that the
decisions are matched by number, then one line per decision where the choices
differ (yours, the rival's, the strong computer's in your position) and one "the
same" line per run where they agree. A rival's move the viewer may not know is
never in the comparison; it is drawn as a face-down card.
"""

from __future__ import annotations

from bot.callback import CompareButton
from bot.i18n import t
from bot.render.common import MAX_TEXT, Button, Screen, action_label, esc, game_name, screen
from bot.render.review import points
from bot.render.text import fit, shown_name, visible_length
from sessions.compare import Comparison, Same, Step


def compare_button(session: int, deal_no: int, lang: str) -> Button:
    """⚖️ Compare: the presser's daily deal ``deal_no`` (0 first) beside the others'."""
    return Button(t(lang, "button-compare"), CompareButton(session, deal_no).pack())


def render_compare(comparison: Comparison, lang: str) -> Screen:
    """The comparison of one daily deal, cut to Telegram's limit between its rows (the
    head and the notes under them always shown)."""
    rival = comparison.rival
    game = esc(game_name(comparison.game_id, lang))
    number = comparison.deal_no + 1
    if rival is None:
        head = [t(lang, "compare-title-alone", n=number, game=game), t(lang, "compare-alone")]
    else:
        name = shown_name(rival.name)
        head = [
            t(lang, "compare-title", n=number, game=game, name=name),
            t(lang, "compare-rival-best" if rival.place == 1 else "compare-rival-next",
              name=name, points=points(rival.points, lang), place=rival.place),
            t(lang, "compare-aligned", name=name),
        ]
    if not comparison.steps:
        return screen("\n".join([*head, "", t(lang, "compare-nothing")]))
    rows = [_row(part, comparison, lang) for part in comparison.runs()]
    notes = []
    if any(step.hidden for step in comparison.steps):
        notes.append(t(lang, "compare-hidden-note"))
    if comparison.unjudged:
        notes.append(t(lang, "review-unjudged", count=comparison.unjudged))
    top = "\n".join([*head, ""])
    bottom = "\n".join(["", *notes]) if notes else ""
    room = MAX_TEXT - visible_length(top) - visible_length(bottom) - 1
    return screen(top + "\n" + fit("\n".join(rows), room) + bottom)


def _row(part: Step | Same, comparison: Comparison, lang: str) -> str:
    """One line: a run of agreed decisions, or a decision where the choices differ."""
    if isinstance(part, Same):
        if part.first == part.last:
            return t(lang, "compare-same-one", n=part.first)
        return t(lang, "compare-same-run", first=part.first, last=part.last)
    where = (
        t(lang, "compare-at-trick", n=part.number, trick=part.trick)
        if part.trick and not part.yours.startswith(("bid:", "trump:"))
        else t(lang, "compare-at", n=part.number)
    )
    yours = action_label(part.yours, lang)
    computer = (
        t(lang, "compare-unjudged-choice") if part.computer is None
        else action_label(part.computer, lang)
    )
    if comparison.rival is None:
        return t(lang, "compare-row-alone", where=where, yours=yours, computer=computer)
    if part.hidden:
        theirs = t(lang, "compare-hidden")
    elif part.rival is None:
        theirs = t(lang, "compare-over")
    else:
        theirs = action_label(part.rival, lang)
    return t(lang, "compare-row", where=where, yours=yours, name=shown_name(comparison.rival.name),
             theirs=theirs, computer=computer)
