"""Encrypted bundles on the coordinator's side: when a build encrypts, the build's keys, and opening one.

**The default rule** (``bundle build`` without ``--encrypt`` / ``--no-encrypt``): the bundles are encrypted
when any item sent to raters

- is in split ``held_out_project``, or has ``leakageControl.heldOutProject`` true (sent only by a study
  whose ``rater_splits`` list ``held_out_project``: the held-out project's own study), or
- has a ``leakageControl.accessPolicy`` that says so: it contains, in any case, one of
  :data:`POLICY_WORDS` (``held out``, ``held-out``, ``heldout``, ``encrypt`` as in "encrypted bundles
  only", ``confidential``).

A build into a folder whose ``keys/`` holds an earlier encrypted build's keys encrypts too (a re-issued
bundle is never plain by mistake). ``--encrypt`` encrypts whatever the items say; ``--no-encrypt`` writes
plain bundles, and is refused when a held-out item is sent (held-out items never leave the coordinator in the
clear).

**The build's keys**, in an owner-only ``keys/`` folder (0700) beside the unblinding key, never in a bundle:
``keys/coordinator.key`` (the build's X25519 private key, PEM, 0600: it opens every rater's sealed export)
and ``keys/passphrases.json`` (0600: every bundle's file name and passphrase). A later build into the same
folder (a re-issued bundle, ``--raters``) uses them again: the same public key, and each rater's passphrase
and salt, so a re-issued bundle opens with the passphrase the rater already has.

An encrypted bundle is named ``<rater_id>.wmcdp`` (``unassigned.wmcdp``): its name shows no study id.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from wmcdp_desktop.coordinator.study.loader import NEVER_SENT_SPLIT
from wmcdp_desktop.core.atomic import OWNER_ONLY, atomic_write_bytes, atomic_write_text
from wmcdp_desktop.core.bundle_reader import OpenedBundle, open_bundle_bytes
from wmcdp_desktop.core.documents import load_bytes, read_file_bytes
from wmcdp_desktop.core.encryption import bundle_envelope
from wmcdp_desktop.core.encryption.bundle_envelope import (
    HEADER_SIZE,
    MAX_ENCRYPTED_BYTES,
    SALT_BYTES,
    Header,
    KdfParams,
    encrypt_bundle,
    is_encrypted,
    open_bundle,
    read_header,
)
from wmcdp_desktop.core.encryption.passphrase import new_passphrase
from wmcdp_desktop.core.encryption.sealed_box import MAX_PRIVATE_KEY_FILE_BYTES, new_key_pair, public_key_of
from wmcdp_desktop.core.errors import DocumentError, WmcdpError
from wmcdp_desktop.core.files import open_regular
from wmcdp_desktop.core.models.benchmark_item import BenchmarkItem
from wmcdp_desktop.core.models.bundle_manifest import encode_public_key
from wmcdp_desktop.core.models.passphrases import (
    BUNDLE_FILE_PATTERN,
    PASSPHRASES_FORMAT_VERSION,
    PassphraseEntry,
    PassphrasesFile,
)
from wmcdp_desktop.core.paths import check_id, child_path
from wmcdp_desktop.core.strict_json import dumps_canonical

POLICY_WORDS = ("held out", "held-out", "heldout", "encrypt", "confidential")
"""Words of an item's ``accessPolicy`` that make a build encrypt by default."""
KEYS_FOLDER = "keys"
COORDINATOR_KEY_FILE = "coordinator.key"
PASSPHRASES_FILE = "passphrases.json"
FOLDER_MODE = 0o700
MAX_ENCRYPTED_FILE_BYTES = MAX_ENCRYPTED_BYTES + HEADER_SIZE
"""The largest encrypted bundle file read (the plain bundle's cap, and the header)."""
_SPACES = re.compile(r"\s+")


def is_held_out(item: BenchmarkItem) -> bool:
    """Whether ``item`` is held out: split ``held_out_project`` or ``leakageControl.heldOutProject``."""
    return item.split == NEVER_SENT_SPLIT or item.leakageControl.heldOutProject


def policy_word(item: BenchmarkItem) -> str | None:
    """The first of :data:`POLICY_WORDS` in the item's ``accessPolicy``, if any."""
    policy = _SPACES.sub(" ", item.leakageControl.accessPolicy.casefold())
    return next((word for word in POLICY_WORDS if word in policy), None)


def encryption_reasons(items: list[BenchmarkItem]) -> list[str]:
    """Why the default rule encrypts a build sending ``items``: one line per item that asks for it (none: the
    bundles are plain by default)."""
    out: list[str] = []
    for item in sorted(items, key=lambda i: i.benchmarkItemId):
        if item.split == NEVER_SENT_SPLIT:
            out.append(f"{item.benchmarkItemId}: split held_out_project")
        elif item.leakageControl.heldOutProject:
            out.append(f"{item.benchmarkItemId}: leakageControl.heldOutProject is true")
        elif (word := policy_word(item)) is not None:
            out.append(f"{item.benchmarkItemId}: leakageControl.accessPolicy says {word!r}")
    return out


def encrypted_file_name(rater_id: str | None) -> str:
    """``<rater_id>.wmcdp``, ``unassigned.wmcdp`` without a rater: no study id in the name."""
    return f"{check_id(rater_id, 'rater id') if rater_id is not None else 'unassigned'}.wmcdp"


def keys_folder(key_path: Path) -> Path:
    """The build's ``keys/`` folder: beside the unblinding key."""
    return key_path.parent / KEYS_FOLDER


@dataclass
class BuildKeys:
    """The key pair of a build and the passphrases already given out (by bundle file name)."""

    folder: Path
    private_key: bytes = field(repr=False)
    public_key: bytes
    entries: dict[str, PassphraseEntry] = field(default_factory=dict, repr=False)
    reused: bool = False

    @property
    def public_key_text(self) -> str:
        return encode_public_key(self.public_key)

    @property
    def key_path(self) -> Path:
        return self.folder / COORDINATOR_KEY_FILE

    @property
    def passphrases_path(self) -> Path:
        return self.folder / PASSPHRASES_FILE


def earlier_keys(folder: Path) -> bool:
    """Whether ``folder`` holds the keys of an earlier encrypted build (a rebuild into it encrypts too)."""
    return (folder / COORDINATOR_KEY_FILE).exists() or (folder / PASSPHRASES_FILE).exists()


def build_keys(folder: Path, study_id: str) -> BuildKeys:
    """The keys of an earlier build of ``study_id`` in ``folder`` (reused), or a new key pair. Refuses (plain
    :class:`WmcdpError`) a folder holding another study's keys, or a key that does not match its passphrases
    file: overwriting them would lose what opens bundles already sent."""
    key_file, passphrases_file = folder / COORDINATOR_KEY_FILE, folder / PASSPHRASES_FILE
    if not key_file.exists() and not passphrases_file.exists():
        private, public = new_key_pair()
        return BuildKeys(folder, private, public)
    if not key_file.exists() or not passphrases_file.exists():
        missing = key_file if not key_file.exists() else passphrases_file
        raise WmcdpError(f"{folder} holds the keys of an earlier build but not {missing.name}: restore it, or move "
                         "the folder away to make new keys (bundles already sent then no longer match them)")
    private = read_file_bytes(key_file, str(key_file), MAX_PRIVATE_KEY_FILE_BYTES)
    public = public_key_of(private, str(key_file))
    passphrases = load_bytes(PassphrasesFile, read_file_bytes(passphrases_file, str(passphrases_file)),
                             str(passphrases_file))
    if passphrases.study_id != study_id:
        raise WmcdpError(f"{folder} holds the keys of study {passphrases.study_id}, not {study_id}: build into "
                         "another --out folder (or --key elsewhere), so that study's keys are kept")
    if passphrases.coordinator_public_key != encode_public_key(public):
        raise WmcdpError(f"{key_file} is not the key of {passphrases_file} (their public keys differ): restore the "
                         "matching pair")
    return BuildKeys(folder, private, public, {e.bundle_file: e for e in passphrases.bundles}, reused=True)


def passphrase_entry(keys: BuildKeys, file_name: str, rater_id: str | None) -> PassphraseEntry:
    """The passphrase and salt of the bundle ``file_name`` for ``rater_id``: those it was given before, or new
    ones (recorded in ``keys`` for :func:`write_keys`)."""
    earlier = keys.entries.get(file_name)
    if earlier is not None and earlier.rater_id == rater_id:
        return earlier
    if not re.fullmatch(BUNDLE_FILE_PATTERN, file_name):
        raise WmcdpError(f"{file_name}: an encrypted bundle's file name ends in .wmcdp and holds only letters, "
                         "digits, '.', '_' and '-'")
    fields = {"bundle_file": file_name, "passphrase": new_passphrase(), "kdf_salt": os.urandom(SALT_BYTES).hex()}
    entry = PassphraseEntry(**fields, **({"rater_id": rater_id} if rater_id is not None else {}))
    keys.entries[file_name] = entry
    return entry


def encrypt_with(entry: PassphraseEntry, plain_zip: bytes, kdf: KdfParams | None = None) -> bytes:
    """``plain_zip`` encrypted with the entry's passphrase and salt (scrypt cost: ``kdf`` or the default)."""
    cost = kdf or bundle_envelope.DEFAULT_KDF
    salt = bytes.fromhex(entry.kdf_salt)
    return encrypt_bundle(plain_zip, entry.passphrase, KdfParams(n=cost.n, r=cost.r, p=cost.p, salt=salt))


def _private_folder(folder: Path) -> None:
    try:
        folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
        if os.name == "posix":
            os.chmod(folder, FOLDER_MODE)
    except OSError as exc:
        raise WmcdpError(f"cannot create the keys folder {folder}: {exc.strerror or exc}") from None


def write_keys(keys: BuildKeys, study_id: str) -> None:
    """``keys/coordinator.key`` and ``keys/passphrases.json``, owner-only, in an owner-only folder."""
    _private_folder(keys.folder)
    document = PassphrasesFile(
        document_type="wmcdp_passphrases", format_version=PASSPHRASES_FORMAT_VERSION, study_id=study_id,
        coordinator_public_key=keys.public_key_text, bundles=[keys.entries[k] for k in sorted(keys.entries)],
    )
    atomic_write_bytes(child_path(keys.folder, COORDINATOR_KEY_FILE), keys.private_key, mode=OWNER_ONLY)
    atomic_write_text(child_path(keys.folder, PASSPHRASES_FILE), dumps_canonical(document.to_json_obj()),
                      mode=OWNER_ONLY)


# ---------------------------------------------------------------- opening (bundle verify)


def file_is_encrypted(path: Path) -> bool:
    """Whether the regular file ``path`` begins as an encrypted bundle (a folder or an unreadable path: no)."""
    try:
        fd, _ = open_regular(path)
    except OSError:
        return False
    try:
        return is_encrypted(os.read(fd, 64))
    except OSError:
        return False
    finally:
        os.close(fd)


def read_passphrases(path: Path) -> PassphrasesFile:
    """A build's ``keys/passphrases.json`` (:class:`DocumentError` naming it when it is not one)."""
    return load_bytes(PassphrasesFile, read_file_bytes(path, str(path)), str(path))


@dataclass(frozen=True)
class OpenedEncrypted:
    bundle: OpenedBundle
    header: Header


def open_encrypted_bundle(path: Path, passphrase: str) -> OpenedEncrypted:
    """The encrypted bundle file ``path``, decrypted in memory with ``passphrase`` and opened with the checks
    of a plain bundle (nothing is written). :class:`DocumentError` naming the file for a file too large (before
    it is read), a damaged or hostile header, a wrong passphrase or a changed byte."""
    label = path.name
    data = read_file_bytes(path, label, MAX_ENCRYPTED_FILE_BYTES)
    header = read_header(data, label)
    plain, _keys = open_bundle(data, passphrase, label)
    del data
    return OpenedEncrypted(open_bundle_bytes(plain, path), header)


def passphrase_from(passphrases: PassphrasesFile, bundle: Path, source: str) -> str:
    """The passphrase ``passphrases`` lists for the bundle file ``bundle`` (by its file name)."""
    entry = passphrases.entry_for(bundle.name)
    if entry is None:
        raise DocumentError.single(source, f"does not list {bundle.name} (it lists "
                                           f"{', '.join(e.bundle_file for e in passphrases.bundles)}); give the "
                                           "passphrases file of the build that wrote it, or --passphrase TEXT")
    return entry.passphrase
