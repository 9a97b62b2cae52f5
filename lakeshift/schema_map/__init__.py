"""Schema mapping: Hive types, stable field IDs, per-file projections."""
