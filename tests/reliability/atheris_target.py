"""Coverage-guided fuzzing (atheris / libFuzzer) of the project's loaders, run as a subprocess by
test_atheris.py: ``python atheris_target.py -runs=N CORPUS_DIR``.

The first input byte picks the loader (strict JSON, each document model, the zip checks); the rest is
the document. Any exception other than the project's own :class:`DocumentError` naming the source is a
crash: libFuzzer stops, saves the input and exits non-zero.
"""

from __future__ import annotations

import sys

import atheris
import pydantic  # noqa: F401  (imported first: only the project's own modules are instrumented)

with atheris.instrument_imports(include=["wmcdp_desktop"]):
    from wmcdp_desktop.core import documents, strict_json
    from wmcdp_desktop.core import models as _models
    from wmcdp_desktop.core.errors import DocumentError
    from wmcdp_desktop.core.models.draft import Draft
    from wmcdp_desktop.core.zips import reader as zipsafe

MODELS = [getattr(_models, n) for n in _models.__all__] + [Draft]
SOURCE = "fuzz.json"
LIMITS = zipsafe.Limits(max_entries=200, max_member_bytes=1 << 20, max_total_bytes=4 << 20)


def target_count() -> int:
    return len(MODELS) + 2


def test_one_input(data: bytes) -> None:
    if not data:
        return
    which, body = data[0] % target_count(), data[1:]
    try:
        if which == 0:
            strict_json.parse_json_bytes(body, SOURCE)
        elif which == 1:
            zipsafe.open_zip_bytes(body, "fuzz.zip", LIMITS).read_all()
        else:
            documents.load_bytes(MODELS[which - 2], body, SOURCE)
    except DocumentError as exc:
        if not exc.problems or not all(p.file in (SOURCE, "fuzz.zip") for p in exc.problems):
            raise AssertionError(f"error does not name the file: {exc}") from exc


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
