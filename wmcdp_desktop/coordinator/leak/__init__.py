"""The leak scan: no model identity, in any spelling, reaches a rater."""
