"""Validation: canonical row fingerprints, source vs target comparisons."""
