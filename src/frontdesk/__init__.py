"""Frontdesk: a self-hosted AI assistant for company websites."""

__version__ = "0.1.0"
