"""Opening a bundle off the GUI thread and checking all its files in the background."""
