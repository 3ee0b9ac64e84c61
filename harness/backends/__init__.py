"""Retrieval engines behind one protocol; see `base.py`."""
