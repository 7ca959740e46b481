"""``wmcdp bundle verify`` as one call: :func:`verify_bundle` opens a bundle (an encrypted one with its
passphrase, decrypted in memory), checks every file against ``bundle.json`` and, for an encrypted bundle, that
its exports will be sealed to the build's coordinator key; the command only prints the :class:`Verified`.
A file that is a rater's results export instead is said to be one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from wmcdp_desktop.coordinator.bundles.encryption import (
    file_is_encrypted,
    open_encrypted_bundle,
    passphrase_from,
    read_passphrases,
)
from wmcdp_desktop.core.bundle_reader import MANIFEST_NAME as BUNDLE_MANIFEST
from wmcdp_desktop.core.bundle_reader import OpenedBundle, open_bundle
from wmcdp_desktop.core.encryption.bundle_envelope import Header
from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.models.results_manifest import MANIFEST_NAME as EXPORT_MANIFEST
from wmcdp_desktop.core.zips.reader import open_zip_file


@dataclass(frozen=True)
class Verified:
    bundle: OpenedBundle | None
    """The bundle, when it could be opened."""
    header: Header | None
    """The encrypted envelope's header (None: a plain bundle)."""
    calibration_tasks: int
    problems: list[Problem]

    @property
    def ok(self) -> bool:
        return not self.problems


def is_results_export(path: Path) -> bool:
    """A zip (or folder) holding a results export's manifest.json and no bundle.json."""
    if path.is_dir():
        return (path / EXPORT_MANIFEST).is_file() and not (path / BUNDLE_MANIFEST).exists()
    try:
        names = set(open_zip_file(path, path.name).names())
    except (DocumentError, OSError):
        return False
    return EXPORT_MANIFEST in names and BUNDLE_MANIFEST not in names


def _is_zip(path: Path) -> bool:
    """Whether ``path`` begins as a zip does (a plain bundle); an unreadable path: no."""
    try:
        with path.open("rb") as f:
            return f.read(2) == b"PK"
    except OSError:
        return False


def may_be_encrypted(path: Path) -> bool:
    """Whether a passphrase could open ``path``: an encrypted bundle, or a file that is neither a folder nor a
    zip (its own check then says what it is)."""
    return file_is_encrypted(path) or not (path.is_dir() or _is_zip(path))


def _open(path: Path, passphrase: str | None, passphrases: Path | None) -> tuple[OpenedBundle, Header | None, str | None]:
    """The bundle, its header, and the coordinator public key its build's passphrases file names."""
    if passphrase is None and passphrases is None:
        if not file_is_encrypted(path):
            return open_bundle(path), None, None
        raise DocumentError.single(
            str(path), "is an encrypted bundle: give its passphrase with --passphrase TEXT, or the build's "
            "passphrases file with --passphrases keys/passphrases.json")
    public = None
    if passphrase is None:
        assert passphrases is not None
        listed = read_passphrases(passphrases)
        passphrase, public = passphrase_from(listed, path, str(passphrases)), listed.coordinator_public_key
    opened = open_encrypted_bundle(path, passphrase)
    return opened.bundle, opened.header, public


def verify_bundle(path: Path, *, passphrase: str | None = None, passphrases: Path | None = None,
                  progress: Callable[[int, int], None] | None = None) -> Verified:
    """Open and check the bundle ``path`` (``passphrase``, or the build's ``passphrases`` file, for an
    encrypted one; the command refuses them for a bundle :func:`may_be_encrypted` says is plain)."""
    try:
        bundle, header, public = _open(path, passphrase, passphrases)
    except DocumentError as exc:
        problems = list(exc.problems)
        if is_results_export(path):
            problems.append(Problem(str(path), "", "this is a rater's results export, not a bundle: check it with "
                                    f"`wmcdp results validate {path}`"))
        return Verified(None, None, 0, problems)
    problems, calibration = bundle.verify(progress=progress)
    if header is not None and bundle.manifest.export_public_key is None:
        problems = [*problems, Problem(f"{path.name}!bundle.json", "export_public_key",
                                       "is missing: the rater's export could not be sealed to the coordinator")]
    elif public is not None and bundle.manifest.export_public_key != public:
        problems = [*problems, Problem(f"{path.name}!bundle.json", "export_public_key",
                                       f"is not the coordinator key of {passphrases}: the exports would be sealed to "
                                       "another build's key, which that build's coordinator.key does not open")]
    return Verified(bundle, header, calibration, problems)
