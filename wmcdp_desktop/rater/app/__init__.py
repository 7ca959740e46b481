"""The PySide6 rater app. The only layer that imports Qt.

The core modules the window needs are imported here, before the first PySide6 import of the app. Once
PySide6 is imported, its import hook (``shibokensupport.feature``) reads the source of every module
imported after it, looking for the word "PySide6": imported after Qt, pydantic and the models cost the
app's start about 220 source files read and 50-60 ms (docs/PERFORMANCE.md, row 30). Nothing else depends
on this order.
"""

from wmcdp_desktop.core import bundle_reader  # noqa: F401
from wmcdp_desktop.rater import session, settings, storage  # noqa: F401
