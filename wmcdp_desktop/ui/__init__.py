"""The PySide6 rater app. The only layer that imports Qt."""
