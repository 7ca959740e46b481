"""Where the shipped files live: demo study, demo bundle, default rubric, schemas, licence and notices.

One lookup serves every way the app runs. The files sit either inside the package folder, as the wheel
and the standalone (PyInstaller) build lay them out (``wmcdp_desktop/_resources``, ``_schemas``,
``_legal``), or at the top of a source checkout (editable install, ``python -m`` from the checkout):
``resources/``, ``schemas/``, ``LICENSE``, ``THIRD-PARTY-NOTICES.md``. In a standalone build the package
folder is inside the app's bundled data folder (PyInstaller's ``sys._MEIPASS``).
"""

from __future__ import annotations

import sys
from pathlib import Path


def package_dir() -> Path:
    """The ``wmcdp_desktop`` package folder: next to this module, or inside a standalone build's data."""
    bundled = getattr(sys, "_MEIPASS", None)
    if getattr(sys, "frozen", False) and bundled:
        return Path(bundled) / "wmcdp_desktop"
    return Path(__file__).resolve().parent.parent


def _locate(packaged: str, checkout: str) -> Path:
    """``packaged`` inside the package folder (wheel, standalone build), else ``checkout`` in the checkout.

    When neither exists (a damaged install), the path where the install should have it: callers that
    open it say which file is missing from the installation.
    """
    package = package_dir()
    inside, beside = package / packaged, package.parent / checkout
    if inside.exists() or (not beside.exists() and getattr(sys, "frozen", False)):
        return inside
    return beside


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


def license_path() -> Path:
    """The project's licence (Apache-2.0)."""
    return _locate("_legal/LICENSE", "LICENSE")


def notices_path() -> Path:
    """The third-party notices: what the app ships and under which licence."""
    return _locate("_legal/THIRD-PARTY-NOTICES.md", "THIRD-PARTY-NOTICES.md")


def licenses_folder() -> Path | None:
    """The standalone build's ``licenses/`` folder (every shipped component's licence texts), else None."""
    if not getattr(sys, "frozen", False):
        return None
    folder = Path(sys.executable).resolve().parent / "licenses"
    return folder if folder.is_dir() else None


def legal_text() -> str:
    """The third-party notices followed by the project's licence, as shown in Help > About."""
    notices = notices_path().read_text(encoding="utf-8")
    licence = license_path().read_text(encoding="utf-8")
    return f"{notices.rstrip()}\n\n\nWM-CDP Desktop licence (LICENSE)\n\n{licence.strip()}\n"
