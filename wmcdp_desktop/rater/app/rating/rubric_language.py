"""Which language the rubric is shown in, said to the rater: a translation that clinicians have not validated,
or a rubric that has no translation into the rater's language (shown in its own words). The choice itself is
the core's (:meth:`~wmcdp_desktop.core.models.rubric.Rubric.in_language`); this only words it."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from wmcdp_desktop.core.models.rubric import RubricInLanguage
from wmcdp_desktop.rater.app.text.i18n import language_label
from wmcdp_desktop.rater.app.text.plain_text import safe_line


def rubric_language_notice(view: RubricInLanguage) -> str | None:
    """What the rater must know about the rubric's language (None: it is in theirs, as written or validated)."""
    if view.translation is not None:
        if view.translation.clinically_validated:
            return None
        text = QCoreApplication.translate(
            "RubricLanguage",
            "The rubric is shown in translation (language: {language}; written in: {original}). The translation "
            "has not been clinically validated: if a word seems to mean something other than you would expect, "
            "ask your study coordinator.",
        ).format(language=language_label(view.language), original=language_label(view.source))
        if view.translation.note:
            text += "\n" + safe_line(view.translation.note)
        return text
    if view.in_wanted_language:
        return None
    return QCoreApplication.translate(
        "RubricLanguage",
        "This bundle's rubric has no translation into your language ({language}): its dimensions, levels and "
        "failure modes are shown as written ({original}).",
    ).format(language=language_label(view.wanted), original=language_label(view.source))
