"""Where the shipped resources (demo study, demo bundle, default rubric) and schemas live.

In an installed wheel they are inside the package (``wmcdp_desktop/_resources``, ``_schemas``); in a
source checkout or editable install they are the repository's top-level ``resources/`` and ``schemas/``.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent


def _locate(packaged: str, checkout: str) -> Path:
    inside = _PACKAGE / packaged
    if inside.is_dir():
        return inside
    return _PACKAGE.parent / checkout


def resources_dir() -> Path:
    """The resources folder."""
    return _locate("_resources", "resources")


def schemas_dir() -> Path:
    """The JSON Schemas folder."""
    return _locate("_schemas", "schemas")


def default_rubric_path() -> Path:
    """The default rubric for paediatric anxiety and OCD care."""
    return resources_dir() / "rubric" / "wmcdp-rubric.json"


def demo_study_dir() -> Path:
    """The demo study folder."""
    return resources_dir() / "demo-study"


def demo_bundle_path() -> Path:
    """The demo bundle built from the demo study (``wmcdp bundle build``)."""
    return resources_dir() / "demo-bundle.wmcdp"
