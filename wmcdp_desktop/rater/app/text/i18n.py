"""The app's languages: which one is used, its Qt translators, the layout direction and the locale.

The app's own words go through Qt's translation (``self.tr()`` / ``QCoreApplication.translate``); the
catalogues are ``translations/wmcdp_<lang>.ts`` (made by ``pyside6-lupdate``) compiled to ``.qm`` (by
``pyside6-lrelease``): ``python -m tools.translations`` regenerates both (docs/TRANSLATING.md).
Qt's own words (standard buttons, file dialogs) come from Qt's ``qtbase_<lang>.qm``, loaded beside ours.

The language is the rater's choice (Settings > Language, saved in the settings) or, when none was made,
the computer's. A right-to-left language (Arabic, Hebrew, ...) mirrors the layout even where the app has
no catalogue of its own. Bundle content is never translated: it is shown as written.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, Qt, QTranslator

LANGUAGES: dict[str, str] = {"en": "English", "es": "Español"}
"""The languages the app ships, by code, each named in itself (never translated: a rater looks for their own
language by its own name). English is the source language: its catalogue holds only its plural forms."""
TRANSLATIONS_DIR = Path(__file__).resolve().parent / "translations"
CATALOGUE = "wmcdp"
"""``translations/wmcdp_<lang>.qm``."""

_installed: list[QTranslator] = []


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:
    """Mark ``text`` for the catalogue under ``context`` (translated where it is shown, with that context)."""
    return text


APP_TITLE = QT_TRANSLATE_NOOP("MainWindow", "WM-CDP Desktop")


def app_title() -> str:
    """The app's name as windows and message boxes show it, in the chosen language."""
    return QCoreApplication.translate("MainWindow", APP_TITLE)


def chosen_locale(language: str | None) -> QLocale:
    """The locale the app uses: the rater's chosen language, else the computer's locale."""
    return QLocale(language) if language else QLocale.system()


def qt_translations_dir() -> Path:
    """Where Qt's own catalogues are (PySide6's ``Qt/translations``; the standalone app keeps the ones the
    app ships a language for: packaging/wmcdp.spec)."""
    return Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath))


def install_translators(language: str | None, app: QCoreApplication | None = None) -> QLocale:
    """Use ``language`` (a code of :data:`LANGUAGES`, None: the computer's): install the app's and Qt's
    translators for it (replacing any installed before), make its locale the default (dates, numbers) and
    set the layout direction (mirrored for a right-to-left language). Returns the locale used."""
    app = app or QCoreApplication.instance()
    locale = chosen_locale(language)
    remove_translators(app)
    QLocale.setDefault(locale)
    if app is None:
        return locale
    # English first: the source language's plural forms ("1 thing", "2 things"), also under any language
    # the app has no catalogue for; then the language's own catalogue and Qt's, searched before it.
    _install(app, lambda t: t.load(str(qm_path("en"))))
    if locale.language() not in (QLocale.Language.English, QLocale.Language.C):
        for folder, name in ((TRANSLATIONS_DIR, CATALOGUE), (qt_translations_dir(), "qtbase")):

            def load(t: QTranslator, n: str = name, f: Path = folder) -> bool:
                return t.load(locale, n, "_", str(f))

            _install(app, load)
    set_layout_direction(locale, app)
    return locale


def _install(app: QCoreApplication, load: Callable[[QTranslator], bool]) -> None:
    translator = QTranslator(app)
    if load(translator):
        app.installTranslator(translator)
        _installed.append(translator)
    else:
        translator.deleteLater()


def set_layout_direction(locale: QLocale, app: QCoreApplication | None = None) -> None:
    """Mirror the layout for a right-to-left locale (left-to-right otherwise)."""
    from PySide6.QtWidgets import QApplication

    app = app or QCoreApplication.instance()
    if isinstance(app, QApplication):
        app.setLayoutDirection(locale.textDirection())


def remove_translators(app: QCoreApplication | None = None) -> None:
    app = app or QCoreApplication.instance()
    while _installed:
        translator = _installed.pop()
        if app is not None:
            app.removeTranslator(translator)
        translator.deleteLater()


def language_name(code: str | None) -> str:
    return LANGUAGES.get(code or "", code or "")


def app_language_tag() -> str:
    """The app's language as a BCP 47 tag (``es``, ``es-MX``, ``en``): what bundle content is looked up by."""
    return QLocale().bcp47Name()


def language_label(tag: str) -> str:
    """A language named in itself, as Settings > Language names it (``Español``), else as Qt names it in that
    language (``français``), else the tag."""
    primary = tag.replace("_", "-").split("-", 1)[0].lower()
    return LANGUAGES.get(primary) or QLocale(tag).nativeLanguageName() or tag


def number(value: int) -> str:
    """A whole number as the app's locale writes it (``10,000`` in English, ``10.000`` in Spanish, Arabic-Indic
    digits in Arabic): every count, position and total the app shows goes through it (or Qt's ``%Ln``)."""
    return QLocale().toString(value)


def format_datetime(utc_iso: str, *, seconds: bool = False, date: bool = True) -> str:
    """``2026-11-29T23:45:40Z`` in the computer's time zone, written as the app's locale writes it
    (``29/11/26 23:45`` in Spanish, ``11/29/26 11:45 PM`` in US English; ISO 8601, ``2026-11-29 23:45``, where
    the computer has no locale at all: the C/POSIX locale writes ``29 11 2026``); the text as given if
    unreadable."""
    from PySide6.QtCore import QDateTime

    when = QDateTime.fromString(utc_iso.replace("Z", "+00:00"), Qt.DateFormat.ISODateWithMs)
    if not when.isValid():
        when = QDateTime.fromString(utc_iso.replace("Z", "+00:00"), Qt.DateFormat.ISODate)
    if not when.isValid():
        return utc_iso
    local = when.toLocalTime()
    locale = QLocale()
    if locale.language() == QLocale.Language.C:
        time_text = local.time().toString("HH:mm:ss" if seconds else "HH:mm")
        return f"{local.date().toString('yyyy-MM-dd')} {time_text}" if date else time_text
    short = QLocale.FormatType.ShortFormat
    time_format = locale.timeFormat(QLocale.FormatType.LongFormat if seconds else short)
    if seconds:  # the long format names the time zone: keep the hours, minutes and seconds only
        time_format = re.sub(r"\s*\(?t{1,4}\)?", "", time_format).strip()
    time_text = locale.toString(local.time(), time_format)
    if not date:
        return time_text
    return f"{locale.toString(local.date(), short)} {time_text}"


# ----- catalogues ---------------------------------------------------------------------------------------
APP_DIR = Path(__file__).resolve().parent.parent
"""The rater's app: every module under it is a source of the catalogues."""
SHIPPED = list(LANGUAGES)


def ts_path(code: str) -> Path:
    return TRANSLATIONS_DIR / f"{CATALOGUE}_{code}.ts"


def qm_path(code: str) -> Path:
    return TRANSLATIONS_DIR / f"{CATALOGUE}_{code}.qm"


def sources() -> list[Path]:
    """The files whose strings are in the catalogues: every module of the rater's app."""
    return sorted(APP_DIR.rglob("*.py"))


def _tool(name: str) -> str:
    """``pyside6-lupdate`` / ``pyside6-lrelease`` beside this Python (a venv), else on PATH."""
    exe = Path(sys.executable).parent / f"pyside6-{name}"
    return str(exe) if exe.exists() else f"pyside6-{name}"


def run_lupdate(ts: Path, *, plural_only: bool = False) -> str:
    """Update ``ts`` from the sources (new strings added, vanished ones dropped); lupdate's report.
    ``plural_only``: only the strings with plural forms (the English catalogue)."""
    root = APP_DIR.parents[2]
    args = [_tool("lupdate"), *(str(p.relative_to(root)) for p in sources()), "-no-obsolete"]
    if plural_only:
        args.append("-pluralonly")
    args += ["-locations", "none", "-ts", str(ts)]
    import subprocess  # a developer's tool (python -m tools.translations): not imported when the app starts

    done = subprocess.run(args, cwd=root, capture_output=True, text=True, check=True)
    return done.stdout + done.stderr


def run_lrelease(ts: Path, qm: Path) -> str:
    import subprocess

    done = subprocess.run([_tool("lrelease"), str(ts), "-qm", str(qm)], capture_output=True, text=True, check=True)
    return done.stdout + done.stderr


def update_catalogues() -> list[str]:
    """Regenerate every shipped ``.ts`` from the sources, then compile each to ``.qm``; the tools' reports."""
    reports = []
    for code in SHIPPED:
        reports.append(run_lupdate(ts_path(code), plural_only=code == "en").strip())
        if code == "en":
            fill_english_plurals(ts_path(code))
        reports.append(run_lrelease(ts_path(code), qm_path(code)).strip())
    return reports


def english_forms(source: str) -> tuple[str, str]:
    """The singular and plural of an English source text written with ``word(s)``."""
    import re

    return re.sub(r"(\w+)\(s\)", r"\1", source), re.sub(r"(\w+)\(s\)", r"\1s", source)


def fill_english_plurals(ts: Path) -> None:
    """Give every English plural message its two forms from its ``word(s)`` source (written by hand for
    anything else: such a message stays unfinished and the catalogue test names it)."""
    import xml.etree.ElementTree as ET

    tree = ET.parse(ts)
    for message in tree.iter("message"):
        source = message.findtext("source") or ""
        translation = message.find("translation")
        if translation is None or "(s)" not in source or translation.get("type") != "unfinished":
            continue
        for form, text in zip(translation.findall("numerusform"), english_forms(source), strict=False):
            form.text = text
        del translation.attrib["type"]
    tree.write(ts, encoding="utf-8", xml_declaration=True)
