"""Merging and unblinding the raters' exports, and every table written from them."""
