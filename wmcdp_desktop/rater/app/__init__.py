"""The PySide6 rater app. The only layer that imports Qt.

Importing it imports nothing else: the launcher (``main.py``) paints its window before pydantic, the models
and the pages are imported (docs/PERFORMANCE.md, "Start-up").
"""
