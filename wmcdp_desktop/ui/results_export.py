"""File > Export results…: choose where, write the results zip, say what it holds and what it leaves out."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from wmcdp_desktop.core.errors import WmcdpError
from wmcdp_desktop.core.rater.rating_session import RatingSession

if TYPE_CHECKING:  # the export's models are imported when exporting, not for the app's first paint
    from wmcdp_desktop.core.models.results_manifest import ResultsManifest


def export_summary(manifest: ResultsManifest, path: Path, revisions_in_progress: int) -> str:
    """What was exported and what was not, in plain words."""
    return _Summary().text(manifest, path, revisions_in_progress)


class _Summary(QObject):
    """The words of :func:`export_summary` (a class: Qt's catalogue tool finds plural forms in ``self.tr``)."""

    def text(self, manifest: ResultsManifest, path: Path, revisions_in_progress: int) -> str:
        c = manifest.counts
        note = ""
        if c.drafts_not_submitted:
            note += "\n" + self.tr("Not included: %n task(s) started but not submitted yet.", "", c.drafts_not_submitted)
        if revisions_in_progress:
            note += "\n" + self.tr(
                "Not included: %n revision(s) you have not submitted yet (the earlier submitted rating is included).",
                "",
                revisions_in_progress,
            )
        exported = self.tr(
            "Exported %n submitted rating(s) of {total} tasks (with every earlier revision) to:", "", c.submitted
        )
        return (
            exported.format(total=c.tasks_in_bundle)
            + f"\n{path}{note}\n"
            + self.tr("Send this file to your study coordinator.")
        )


class ResultsExporter(QObject):
    told = Signal(str, bool)
    finished = Signal(bool)
    """After an export: True when the file was written."""

    def __init__(self, session: RatingSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session

    def choose(self, parent: QWidget) -> None:
        """Ask where to save (a name with the study, rater and time proposed), then export there."""
        from wmcdp_desktop.core.rater.export import export_file_name  # on use: not needed for the first paint

        s = self.session
        default = Path.home() / export_file_name(s.manifest.study_id, s.rater.rater_id, s.clock)
        path, _ = QFileDialog.getSaveFileName(parent, self.tr("Export results"), str(default), self.tr("Results (*.zip)"))
        if path:
            self.export_to(Path(path))

    def export_to(self, path: Path) -> None:
        s = self.session
        revising = sum(1 for tid in s.task_ids if s.has_revision_draft(tid))
        try:
            manifest = s.export_results(path)
        except WmcdpError as exc:
            self.told.emit(
                self.tr("The results could not be exported:") + f"\n{exc}\n" + self.tr("Nothing was written under that name."),
                True,
            )
            self.finished.emit(False)
            return
        self.told.emit(export_summary(manifest, path, revising), False)
        self.finished.emit(True)
