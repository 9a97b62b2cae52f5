"""Delta Lake target: the log layer (schema with column mapping, commits via delta-rs)."""
