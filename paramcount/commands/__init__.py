"""One module per command; cli.py loads them lazily."""
