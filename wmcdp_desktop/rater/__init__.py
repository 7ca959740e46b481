"""What the rater's app needs: the rating session, the data folder, timing, settings, export, labels."""
