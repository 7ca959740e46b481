"""What the coordinator's tools need: study loading, bundle building, results reading, collecting."""
