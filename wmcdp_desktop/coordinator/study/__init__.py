"""A study folder read and cross-checked; the starter study of ``wmcdp study init``."""
