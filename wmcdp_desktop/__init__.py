"""WM-CDP Desktop: offline rating tool for the WholeMind Clinical Decision Benchmark.

Layers: ``core`` (pure Python, never imports Qt), ``cli`` and ``analysis`` on top of the core, and
``ui`` (PySide6) on top of the core.
"""

__version__ = "0.1.0"
