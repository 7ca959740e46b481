"""Showing text: plain text made safe, what screen readers are told, colours, languages."""
