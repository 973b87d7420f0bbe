"""The conversation graph's nodes."""
