"""The raters' records read back, checked against their bundles and their export's seal."""
