"""The rating form: the sliders of the eight dimensions, failure modes, notes, cannot rate, the timer."""
