"""Benchmarks of WM-CDP Desktop: synthetic studies at any size and ratio-against-floor timings.

Run everything with ``python -m benchmarks.run`` (see benchmarks/README.md). Not part of the test suite.
"""
