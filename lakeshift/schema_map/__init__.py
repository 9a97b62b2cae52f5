"""Schema mapping: stable field IDs and the target mapping that carries them across changes."""
