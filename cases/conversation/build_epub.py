"""Builds `projects/salt-road/tales-from-the-salt-road.epub`, the prose fixture's EPUB, with ebooklib.

The stories are original text written for the conversation suite; their text lives here so the
binary file can be rebuilt and checked (`tests/conversation/test_fixture_epub.py`):
`python cases/conversation/build_epub.py`.
"""

from __future__ import annotations

import html
from pathlib import Path

TARGET = Path(__file__).parent / "projects" / "salt-road" / "tales-from-the-salt-road.epub"
TITLE = "Tales from the Salt Road"
AUTHOR = "Ines Carrow"

STORIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "The Glassblower of Amberley",
        (
            "In Amberley, on the salt road's last hill, lived a glassblower named Tobin Wray who could"
            " not make a clear pane. Every sheet he blew came out the green of shallow water.",
            "Carters bought his green glass for their lanterns because it did not glare in fog. Within"
            " a year every lantern on the road was green, and travellers learned to trust the colour.",
            "When a rival in Vell sold clear lanterns at half the price, the carters kept Tobin's. Clear"
            " light, they said, shows you the road; green light shows you who made it.",
        ),
    ),
    (
        "Winter Tolls",
        (
            "The toll keeper at Hollin Gate charged a pinch of salt per cart in summer and a story per"
            " cart in winter, when the carts ran empty.",
            "One January a carter with nothing to tell paid with silence instead: she sat by the brazier"
            " all night without a word. In the morning the toll keeper waved her through and said it"
            " was the best story of the season.",
        ),
    ),
)


def build(target: Path = TARGET) -> Path:
    """Write the EPUB: one XHTML chapter per story, a table of contents and the navigation files."""
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("tales-from-the-salt-road")
    book.set_title(TITLE)
    book.set_language("en")
    book.add_author(AUTHOR)
    chapters = []
    for number, (title, paragraphs) in enumerate(STORIES, start=1):
        chapter = epub.EpubHtml(title=title, file_name=f"story-{number}.xhtml", lang="en")
        body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
        chapter.content = f"<h1>{html.escape(title)}</h1>{body}"
        book.add_item(chapter)
        chapters.append(chapter)
    book.toc = tuple(chapters)
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *chapters]
    epub.write_epub(str(target), book)
    return target


if __name__ == "__main__":
    print(build())
