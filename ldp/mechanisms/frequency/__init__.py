"""frequency."""
