"""The kinds of case the one runner drives, one module each (see harness/evaluation/kind.py)."""
