"""The rater's audit log as a hash chain, and the receipt code derived from its head.

Written by ``rater/storage.py`` (every event) and ``rater/export.py`` (the seal); checked by the
rater's app and by the coordinator (``coordinator/results/provenance.py``). Both use this module only.

The log (``audit.jsonl``) is one JSON object per line. Every line written by this version carries
``prev``: the SHA-256 (hex) of the bytes of the line before it (without its newline), or
:data:`GENESIS` for the first line of an empty log. The first chained line of a log also carries
``chain_start``: the SHA-256 of every byte of the log before it (nothing, for a new log; a first line
torn by a crash before it was whole, which the chain covers this way). A line torn by a crash stays in
the file and is a link like any other (the next event's ``prev`` is its hash). Changing, removing or inserting any byte
before the last line breaks a link.

A record revision is tied into the chain by the event that wrote it (``submitted``, ``revised`` or
``record_recovered``, each with the record's ``file`` name and ``sha256``). An export ends the chain it
carries with an ``export_sealed`` event naming the bundle (id and SHA-256), the rater, the study and a
digest of the record files exported; the SHA-256 of that line is the chain's **head**. The **receipt
code** is derived from the head (:func:`receipt_code`) and travels apart from the file (read aloud,
pasted in an email), so an export changed after it was sealed, by anyone, no longer matches it.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from wmcdp_desktop.core.counts import count
from wmcdp_desktop.core.digests import sha256_hex

GENESIS = "0" * 64
"""``prev`` of the first line of an empty log."""
CHAIN_FIELD = "prev"
START_FIELD = "chain_start"
SEAL_EVENT = "export_sealed"
RECORD_EVENTS = frozenset({"submitted", "revised", "record_recovered"})
"""Events that tie a record file (``file``, ``sha256``, ``task_id``, ``revision``) into the chain."""

RECEIPT_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Crockford's base 32: no I, L, O or U, so a code read aloud or typed cannot be misread."""
RECEIPT_LENGTH = 10
"""Characters of a receipt code (50 bits), shown in two groups of five: ``7K3QD-M2XWA``."""
_RECEIPT_SALT = b"wmcdp-receipt-v1"
# scrypt makes each guess at a code cost 4 MB and ~20 ms of a laptop's CPU: finding another chain with
# the same 50-bit code takes about 2**49 guesses (hundreds of thousands of CPU-years).
_SCRYPT = {"n": 2**12, "r": 8, "p": 1, "maxmem": 16 * 1024 * 1024}


def line_sha256(line: bytes) -> str:
    """The SHA-256 (hex) of one log line's bytes, without its newline."""
    return sha256_hex(line)


def encode_event(obj: dict[str, Any]) -> bytes:
    """The bytes of one event line as the app writes it (sorted keys; no newline)."""
    return json.dumps(obj, ensure_ascii=False, sort_keys=True).encode("utf-8")


def records_digest(files: Iterable[tuple[str, str]]) -> str:
    """SHA-256 over the exported record files as ``(path, sha256)`` pairs, in path order: what a seal says
    was exported."""
    text = "".join(f"{path}\t{sha}\n" for path, sha in sorted(files))
    return sha256_hex(text.encode("utf-8"))


def split_lines(data: bytes) -> list[bytes]:
    """The log's lines (the last one may be torn: no newline after it)."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def parse_event(line: bytes) -> dict[str, Any] | None:
    """The event of one line, or None for a torn or foreign line."""
    try:
        obj = json.loads(line)
    except ValueError:  # UnicodeDecodeError is a ValueError
        return None
    return obj if isinstance(obj, dict) else None


@dataclass
class ChainCheck:
    """What :func:`verify_chain` found."""

    events: list[dict[str, Any]] = field(default_factory=list)
    """Every event of the log (old lines before the chain included), in order."""
    chained_from: int | None = None
    """1-based line number of the first chained line (None: the log has no chain)."""
    head: str | None = None
    """SHA-256 of the last line when the chain holds up to it."""
    lines: int = 0
    problems: list[str] = field(default_factory=list)
    """Plain sentences; empty when the chain holds."""

    @property
    def ok(self) -> bool:
        return not self.problems and self.head is not None

    @property
    def last_event(self) -> dict[str, Any] | None:
        return self.events[-1] if self.events else None


def verify_chain(data: bytes) -> ChainCheck:
    """Check every link of an audit log's bytes. Never raises for bad content."""
    lines = split_lines(data)
    check = ChainCheck(lines=len(lines))
    offset = 0
    previous: str | None = None
    for number, line in enumerate(lines, start=1):
        event = parse_event(line)
        if event is not None:
            check.events.append(event)
        digest = line_sha256(line)
        if check.chained_from is None:
            if event is not None and START_FIELD in event:
                check.chained_from = number
                if event.get(START_FIELD) != sha256_hex(data[:offset]):
                    check.problems.append(
                        f"the audit log's lines before line {number} (where its chain starts) were changed"
                    )
                expected = GENESIS if number == 1 else line_sha256(lines[number - 2])
                if event.get(CHAIN_FIELD) != expected:
                    check.problems.append(f"the audit chain is broken at line {number}")
        elif event is not None:
            if event.get(CHAIN_FIELD) is None:
                check.problems.append(
                    f"line {number} of the audit log ({_what(event)}) is not chained: a line was inserted"
                )
            elif event.get(CHAIN_FIELD) != previous:
                check.problems.append(
                    f"the audit chain is broken at line {number} ({_what(event)}): a line before it was "
                    "changed, removed or inserted"
                )
        previous = digest
        offset += len(line) + 1
    if check.chained_from is None:
        check.problems.append("the audit log has no hash chain (it was removed or replaced)")
    elif lines and data.endswith(b"\n"):
        check.head = previous
    elif lines:
        check.problems.append("the audit log's last line is incomplete")
    if len(check.problems) > 20:
        check.problems[20:] = [f"and {count(len(check.problems) - 20, 'more break')} of the audit chain"]
    return check


def _what(event: dict[str, Any]) -> str:
    name = event.get("event")
    return f"event {name}" if isinstance(name, str) and len(name) < 40 else "an event"


# ----- receipt codes -----------------------------------------------------------------------------------
def receipt_code(head: str) -> str:
    """The receipt code of a chain head: 10 characters of Crockford base 32 in two groups (``7K3QD-M2XWA``)."""
    digest = hashlib.scrypt(bytes.fromhex(head), salt=_RECEIPT_SALT, dklen=8, **_SCRYPT)
    value = int.from_bytes(digest, "big") >> (64 - 5 * RECEIPT_LENGTH)
    chars = "".join(RECEIPT_ALPHABET[(value >> (5 * i)) & 31] for i in reversed(range(RECEIPT_LENGTH)))
    return f"{chars[:5]}-{chars[5:]}"


_READ_AS = {"O": "0", "I": "1", "L": "1"}


def _receipt_chars(text: str) -> str:
    """The characters of a typed or pasted code, as its alphabet writes them: full-width forms as ASCII (NFKC),
    upper case, O, I and L as 0, 1 and 1 (Crockford), and without separators: any space (a no-break space from
    an email), any dash (an en dash an editor made of a hyphen) and invisible characters (a zero-width space
    copied from a web page)."""
    out = []
    for ch in unicodedata.normalize("NFKC", text).upper():
        if ch.isspace() or unicodedata.category(ch) in ("Pd", "Cf"):
            continue
        out.append(_READ_AS.get(ch, ch))
    return "".join(out)


def normalise_receipt(text: str) -> str | None:
    """A typed or pasted code in the form :func:`receipt_code` writes, or None when it cannot be one.

    Case, spaces and dashes do not matter, and O, I and L are read as 0, 1 and 1 (see :func:`_receipt_chars`)."""
    chars = _receipt_chars(text)
    if len(chars) != RECEIPT_LENGTH or any(ch not in RECEIPT_ALPHABET for ch in chars):
        return None
    return f"{chars[:5]}-{chars[5:]}"


def receipt_problem(text: str) -> str | None:
    """Why ``text`` cannot be a receipt code, in plain words naming the first wrong character; None if it can."""
    chars = _receipt_chars(text)
    for ch in chars:
        if ch not in RECEIPT_ALPHABET:
            name = unicodedata.name(ch, "")
            shown = f"{ch!r} (U+{ord(ch):04X}{' ' + name if name else ''})"
            return (f"{shown} is not a character of a receipt code: it has 10 digits and capital letters "
                    f"(not U), e.g. 7K3QD-M2XWA")
    if len(chars) != RECEIPT_LENGTH:
        return f"a receipt code has 10 letters and digits, e.g. 7K3QD-M2XWA; this has {len(chars)}"
    return None
