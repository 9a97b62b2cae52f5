"""The lakeshift command line (click). Parses, calls one library function, renders."""
