"""Bulk runs: many tables from one TOML file, concurrently, resumable."""
