"""evaluation."""
