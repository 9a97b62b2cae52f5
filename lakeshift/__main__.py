"""``python -m lakeshift``."""

from lakeshift.cli.main import main

main()
