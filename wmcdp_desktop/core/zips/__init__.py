"""Zip files: the safety rules every zip read must pass, and the one reader built on ``zipfile``."""
