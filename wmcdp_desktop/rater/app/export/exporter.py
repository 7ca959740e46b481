"""File > Export results…: choose where, write the results zip off the GUI thread (with progress and a
cancel button: the rater can go on rating meanwhile), then say what it holds and what it leaves out, and
give the receipt code to send the coordinator apart from the file (rater/app/export/receipt.py)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from wmcdp_desktop.rater.app.jobs import Job, Workers
from wmcdp_desktop.rater.app.text.i18n import number
from wmcdp_desktop.rater.session import RatingSession

if TYPE_CHECKING:  # the export's models are imported when exporting, not for the app's first paint
    from wmcdp_desktop.core.models.results_manifest import ResultsManifest
    from wmcdp_desktop.rater.export import ExportPlan, Progress


def export_summary(manifest: ResultsManifest, path: Path, revisions_in_progress: int, flags_not_submitted: int = 0) -> str:
    """What was exported and what was not (drafts, revisions and flags not submitted), in plain words."""
    return _Summary().text(manifest, path, revisions_in_progress, flags_not_submitted)


class _Summary(QObject):
    """The words of :func:`export_summary` (a class: Qt's catalogue tool finds plural forms in ``self.tr``)."""

    def text(self, manifest: ResultsManifest, path: Path, revisions_in_progress: int, flags_not_submitted: int) -> str:
        c = manifest.counts
        note = ""
        if c.drafts_not_submitted:
            note += "\n" + self.tr("Not included: %Ln task(s) started but not submitted yet.", "", c.drafts_not_submitted)
        if revisions_in_progress:
            note += "\n" + self.tr(
                "Not included: %Ln revision(s) you have not submitted yet (the earlier submitted rating is included).",
                "",
                revisions_in_progress,
            )
        if flags_not_submitted:
            note += "\n" + self.tr(
                "Not included: %Ln flag(s) for your coordinator on tasks not submitted yet. Submit a task to send its flag.",
                "",
                flags_not_submitted,
            )
        exported = self.tr(
            "Exported %Ln submitted rating(s) of {total} tasks (with every earlier revision) to:", "", c.submitted
        )
        return (
            exported.format(total=number(c.tasks_in_bundle))
            + f"\n{path}{note}\n"
            + self.tr("Send this file to your study coordinator.")
        )


def _export_with_receipt(plan: ExportPlan, path: Path, progress: Progress) -> tuple[ResultsManifest, str]:
    """Run on a worker: the export, then its receipt code (a few tens of milliseconds of scrypt)."""
    from wmcdp_desktop.rater.export import export_receipt

    manifest = plan.run(path, progress)
    return manifest, export_receipt(manifest)


class ResultsExporter(QObject):
    told = Signal(str, bool)
    status = Signal(str)
    exported = Signal(str, str)
    """After an export was written: what it holds (plain words) and its receipt code."""
    finished = Signal(bool)
    """After an export: True when the file was written."""

    def __init__(self, session: RatingSession, workers: Workers, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._workers = workers
        self._job: Job | None = None
        self._path = Path()
        self._revising = 0
        self._flags = 0

    @property
    def busy(self) -> bool:
        return self._job is not None

    def choose(self, parent: QWidget) -> None:
        """Ask where to save (a name with the study, rater and time proposed; an encrypted bundle's: the rater and time
        only), then export there."""
        from wmcdp_desktop.rater.export import (  # not for the first paint
            export_file_name,
            sealed_export_file_name,
        )

        s = self.session
        if s.export_public_key is not None:  # an encrypted bundle's: sealed to the coordinator, no study id in the name
            default = Path.home() / sealed_export_file_name(s.rater.rater_id, s.clock)
            kind = self.tr("Sealed results (*.wmcdp-sealed)")
        else:
            default = Path.home() / export_file_name(s.manifest.study_id, s.rater.rater_id, s.clock)
            kind = self.tr("Results (*.zip)")
        path, _ = QFileDialog.getSaveFileName(parent, self.tr("Export results"), str(default), kind)
        if path:
            self.export_to(Path(path))

    def export_to(self, path: Path) -> bool:
        """Start writing the results to ``path``; False while another export is being written."""
        if self._job is not None:
            self.status.emit(self.tr("An export is already being written; wait for it to finish."))
            return False
        s = self.session
        plan = s.export_plan()  # taken now, on this thread: the worker never touches the session
        self._path, self._revising = path, sum(1 for tid in s.task_ids if s.has_revision_draft(tid))
        self._flags = s.flags_not_submitted()
        self._job = self._workers.run(
            self.tr("Exporting results to {name}").format(name=path.name),
            lambda progress: _export_with_receipt(plan, path, progress),
            cancel_label=self.tr("Cancel export"),
        )
        self._job.succeeded.connect(self._written)
        self._job.failed.connect(self._failed)
        self._job.cancelled.connect(self._cancelled)
        return True

    def cancel(self) -> None:
        if self._job is not None:
            self._job.cancel()

    def _written(self, outcome: tuple[ResultsManifest, str]) -> None:
        self._job = None
        manifest, receipt = outcome
        self.exported.emit(export_summary(manifest, self._path, self._revising, self._flags), receipt)
        self.finished.emit(True)

    def _failed(self, message: str) -> None:
        self._job = None
        if message:
            self.told.emit(
                self.tr("The results could not be exported:") + f"\n{message}\n" + self.tr("Nothing was written under that name."),
                True,
            )
        self.finished.emit(False)

    def _cancelled(self) -> None:
        self._job = None
        self.status.emit(self.tr("Export cancelled: nothing was written."))
        self.finished.emit(False)
