"""Writing zips that read back the same everywhere: :func:`deterministic_zip`."""

from __future__ import annotations

import io
import stat
import zipfile

from wmcdp_desktop.core.zips.rules import name_problem


def deterministic_zip(files: dict[str, bytes]) -> bytes:
    """A zip of ``files`` that is byte-identical for the same input: sorted names, fixed timestamps,
    fixed permissions (0644), deflated. A name the readers would refuse raises ``ValueError``."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name in sorted(files):
            reason = name_problem(name)
            if reason:
                raise ValueError(f"{name!r} {reason}")
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            zf.writestr(info, files[name], compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
    return buf.getvalue()
