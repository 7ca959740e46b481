"""No byte of any bundle names a model, alias, vendor, family or response id, under the leak scan's
normalisation - except the one designated field, the blinding check's labels."""

from __future__ import annotations

import io
import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.coordinator.leak.leakfix import MODELS, write_model_study
from tests.kit.studies import read_responses
from wmcdp_desktop.coordinator.bundles.build import LABELS_FIELD
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.coordinator.leak.normalise import SOFT, normalise
from wmcdp_desktop.coordinator.leak.scan import Matcher, walk_strings
from wmcdp_desktop.coordinator.study.leak_scan import study_terms, study_texts
from wmcdp_desktop.coordinator.study.loader import load_study
from wmcdp_desktop.core.models.rubric import DIMENSION_FIELDS
from wmcdp_desktop.core.strict_json import dumps_canonical

LABELS = [
    {"label": "ChatGPT (OpenAI)", "model_source": MODELS[0]},
    {"label": "Claude (Anthropic)", "model_source": MODELS[1]},
    {"label": "Llama (Meta)", "model_source": MODELS[2]},
    {"label": "o1 (OpenAI)", "model_source": MODELS[3]},
    {"label": "Gemini (Google)"},
]


@dataclass(frozen=True)
class View:
    member: str
    """Zip member ("" for the bundle's file name; ``#comment`` and ``#extra`` after a member's name for its
    comment and extra field, ``#comment`` alone for the archive's)."""
    path: str | None
    """JSON path of a string; None for a whole text or a name."""
    text: str


def views(data: bytes, name: str) -> list[View]:
    """Every way a rater can read the bundle ``data`` (file ``name``): its file name, the archive's comment,
    every member's name, comment and extra field, every member's whole text and every string (keys
    included) of its JSON."""
    out = [View("", None, name)]
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        out.append(View("#comment", None, zf.comment.decode("utf-8", "replace")))
        for info in zf.infolist():
            member = zf.read(info)
            out.append(View(info.filename, None, info.filename))
            out.append(View(f"{info.filename}#comment", None, info.comment.decode("utf-8", "replace")))
            out.append(View(f"{info.filename}#extra", None, info.extra.decode("latin-1")))
            out.append(View(info.filename, None, member.decode("utf-8")))
            out += [View(info.filename, p, text) for p, text in walk_strings(json.loads(member))]
    return out


def exempt(view: View) -> str:
    """The view's text with exactly the designated field of ``bundle.json`` taken out."""
    if view.member != "bundle.json":
        return view.text
    if view.path is not None:
        is_field = view.path.startswith(LABELS_FIELD) or (view.path == "" and view.text == LABELS_FIELD)
        return "" if is_field else view.text
    if view.text == "bundle.json":
        return view.text
    cut = re.sub(r'\n  "' + LABELS_FIELD + r'": \[\n(    ".*",?\n)+  \],', "", view.text)
    assert cut != view.text and LABELS_FIELD not in cut
    return cut


@pytest.fixture
def built(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, list[Path]]:
    study = write_model_study(tmp_path / "s", n_items=5, study_extra={"blinding_check": {"labels": LABELS}})
    code = main(["bundle", "build", str(study), "--out", str(tmp_path / "out")])
    assert code == 0, capsys.readouterr()
    code = main(["bundle", "build", str(study), "--out", str(tmp_path / "k"), "--unassigned",
                 "--bundle-file", str(tmp_path / "open.wmcdp")])
    assert code == 0, capsys.readouterr()
    return study, [*sorted((tmp_path / "out").glob("*.wmcdp")), tmp_path / "open.wmcdp"]


@dataclass
class Terms:
    matcher: Matcher
    long: list[str]
    """Term skeletons of 6 characters or more: searched in the normal form of the raw bytes too."""
    exact: list[bytes]
    """Model ids (longer than 3 characters) and response ids, lower case: searched in the raw bytes."""


def terms_of(study_dir: Path) -> Terms:
    terms, _ = study_terms(load_study(study_dir))
    return Terms(Matcher(terms), sorted({t.skeleton for t in terms if len(t.skeleton) >= 6}),
                 [m.lower().encode() for m in MODELS if len(m) > 3]
                 + [r["response_id"].lower().encode() for r in read_responses(study_dir)])


def leaks_in(data: bytes, name: str, terms: Terms) -> list[str]:
    """Every place of the bundle ``data`` that names a model, alias, vendor, family or response id under the
    scan's normalisation, outside the blinding check's labels; [] for a blind bundle."""
    out = []
    raw = data.lower()
    out += [f"raw bytes: {e!r}" for e in terms.exact if e in raw]  # compressed data and zip headers included
    flat_raw = normalise(data.decode("latin-1")).text.replace(SOFT, "")
    out += [f"raw bytes, normalised: {t!r}" for t in terms.long if t in flat_raw]
    labels_seen = False
    for view in views(data, name):
        kept = exempt(view)
        labels_seen |= kept != view.text
        out += [f"{view.member}:{view.path}: {m.term.display!r} in {kept[m.start:m.end]!r}"
                for m in terms.matcher.find(kept)]
        # independently of the matcher: no long term even as a bare substring of the normal form
        flat = normalise(kept).text.replace(SOFT, "")
        out += [f"{view.member}:{view.path}: {t!r} in the normal form" for t in terms.long if t in flat]
    if not labels_seen:
        out.append("the blinding check's labels are not in bundle.json")
    return out


def test_no_bundle_byte_names_a_model_outside_the_labels(built: tuple[Path, list[Path]]) -> None:
    study_dir, bundles = built
    terms = terms_of(study_dir)
    assert len(bundles) == 4
    for path in bundles:
        assert leaks_in(path.read_bytes(), path.name, terms) == [], path.name


def _rewritten(data: bytes, change: str) -> bytes:
    """``data`` (a blind bundle) with one leak planted by ``change``."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            member = src.read(info)
            if change == "a task's string, look-alike letters" and info.filename.startswith("tasks/"):
                obj = json.loads(member)
                obj["candidate_response_text"] += " \u0421l\u0430ude 3.5 S\u043ennet"
                member = json.dumps(obj).encode()
            if change == "a member's comment":
                info.comment = b"gpt-4o-2024-08-06"
            if change == "a member's extra field" and info.filename == "bundle.json":
                info.extra = b"\xca\xfe\x11\x00" + b"resp-0001".ljust(17, b" ")
            dst.writestr(info, member)
        if change == "a member named after a response id":
            dst.writestr("tasks/RESP-0002.json", b"{}")
        if change == "the archive's comment, spaced out":
            dst.comment = b"L l a m a"
        if change == "bundle.json outside the labels field, zero-width space":
            obj = json.loads(src.read("bundle.json"))
            obj["title"] = "Anthro\u200bpic study"
            dst.writestr("extra.json", json.dumps(obj).encode())
    return out.getvalue()


@pytest.mark.parametrize("change", [
    "a task's string, look-alike letters", "a member's comment", "a member's extra field",
    "a member named after a response id", "the archive's comment, spaced out",
    "bundle.json outside the labels field, zero-width space",
])
def test_the_byte_check_finds_a_leak_planted_anywhere_in_the_zip(built: tuple[Path, list[Path]], change: str) -> None:
    study_dir, bundles = built
    terms = terms_of(study_dir)
    data = bundles[0].read_bytes()
    assert leaks_in(data, bundles[0].name, terms) == []
    assert leaks_in(_rewritten(data, change), bundles[0].name, terms), change


def test_the_labels_field_is_the_same_everywhere_and_is_the_only_exception(built: tuple[Path, list[Path]]) -> None:
    study_dir, bundles = built
    study = load_study(study_dir)
    matcher = Matcher(study_terms(study)[0])
    expected = sorted((x["label"] for x in LABELS), key=str.casefold)
    for path in bundles:
        with zipfile.ZipFile(path) as zf:
            manifest = json.loads(zf.read("bundle.json"))
        assert manifest[LABELS_FIELD] == expected  # sorted: the coordinator's order (decoys last) does not show
        # without the exemption the field would be refused: the test above is not vacuous
        assert matcher.find(dumps_canonical(manifest[LABELS_FIELD]))
        rest = {k: v for k, v in manifest.items() if k != LABELS_FIELD}
        assert matcher.find(dumps_canonical(rest)) == []


def test_a_study_without_the_check_has_no_labels_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_model_study(tmp_path / "s")
    assert main(["bundle", "build", str(study), "--out", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    for path in (tmp_path / "out").glob("*.wmcdp"):
        with zipfile.ZipFile(path) as zf:
            assert LABELS_FIELD not in json.loads(zf.read("bundle.json"))


def values(obj: object) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [v for value in obj.values() for v in values(value)]
    if isinstance(obj, list):
        return [v for value in obj for v in values(value)]
    return []


def test_every_string_of_a_bundle_is_a_scanned_text_or_made_by_the_builder(built: tuple[Path, list[Path]]) -> None:
    """The texts ``study validate`` scans are all the texts the builder copies (so both find the same)."""
    study_dir, bundles = built
    scanned = {t.text for t in study_texts(load_study(study_dir))}
    generated = re.compile(
        r"(t-[0-9a-f]{16}|cr-[0-9a-f]{24}|[0-9a-f]{64}|tasks/t-[0-9a-f]{16}\.json|rubric\.json|"
        r"STUDY-T1\.(R[0-9]|open)\.[0-9a-f]{12}|wmcdp_(bundle|task|rubric)|1\.[01]\.0|2026-11-01T09:00:00Z)"
    )
    vocabulary = {"applies", "does_not_apply", "uncertain", "satisfied", "partially_satisfied", "not_satisfied",
                  "not_applicable", "cannot_determine", "none", "minor", "moderate", "major", "critical", "clear",
                  "candidate_response", "benchmark_item", "accept", "parent", "assistant",
                  *DIMENSION_FIELDS.values()}
    for path in bundles:
        with zipfile.ZipFile(path) as zf:
            for name in zf.namelist():
                obj = json.loads(zf.read(name))
                if name == "bundle.json":
                    obj = {k: v for k, v in obj.items() if k != LABELS_FIELD}
                for text in values(obj):
                    assert text in scanned or text in vocabulary or generated.fullmatch(text), (path.name, name, text)
