"""Project folders (code bases, books, document folders) as memory records: one module per parser,
`ingest` walks a folder and links what they found."""

from harness.suites.projects.ingest import ProjectError, ingest

__all__ = ["ProjectError", "ingest"]
