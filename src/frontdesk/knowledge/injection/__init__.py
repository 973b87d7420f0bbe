"""Planted and hidden instructions found in a site's pages, withheld from answers."""
