"""What every engine can store and search, in one place: the smallest of what each engine accepts.

Suites are checked against these at load, before any engine sees their data, so what loads runs
alike on every engine (README, "Failures and exit codes"; cases/README.md, "Limits").
"""

from __future__ import annotations

MAX_ID_CHARS = 255
"""Ids, users, scopes: PostgreSQL's btree keys hold about 2,700 bytes, and 255 4-byte characters fit twice."""
MAX_WORD_CHARS = 255
"""Lucene's (Atlas's) maximum token length; also keeps a term inside PostgreSQL's btree key limit."""
MAX_TEXT_CHARS = 100_000
"""A name, an alias, a content text, a query, a session turn or a conversation turn's message."""
MAX_PATH_BYTES = 1024
"""A project file's path, and each record id made from it (`path#symbol`), in UTF-8 bytes: with a
255-character word beside it, it stays inside PostgreSQL's 2,704-byte btree key (`docs`, `terms`)."""
MAX_DOCUMENT_BYTES = 1024 * 1024
"""A project file: larger ones are generated or data files, whose text would swamp every search."""
MAX_ARCHIVE_BYTES = 64 * 2**20
"""An archive (EPUB) expanded: the sum of its members' sizes, read before any member is."""
