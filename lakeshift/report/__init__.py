"""Reports: JSON and Markdown files under the state directory."""
