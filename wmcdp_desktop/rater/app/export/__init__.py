"""File > Export results…: the zip written off the GUI thread, and the receipt code shown after."""
