"""SQLite storage for berths, boats and bookings.

One file (`harbor.db`); the schema is created on first use. Dates are stored as ISO strings.
"""

import sqlite3
from dataclasses import dataclass
from datetime import date

SCHEMA = """
CREATE TABLE IF NOT EXISTS berths (id TEXT PRIMARY KEY, max_length_m REAL NOT NULL);
CREATE TABLE IF NOT EXISTS boats (name TEXT PRIMARY KEY, length_m REAL NOT NULL, draft_m REAL NOT NULL);
CREATE TABLE IF NOT EXISTS bookings (id TEXT PRIMARY KEY, berth TEXT, boat TEXT, arrive TEXT, nights INTEGER);
"""


@dataclass(frozen=True)
class Berth:
    id: str
    max_length_m: float

    def as_json(self) -> dict:
        return {"id": self.id, "max_length_m": self.max_length_m}


class BookingStore:
    """All reads and writes of the marina's data."""

    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path)
        self.db.executescript(SCHEMA)

    def berths(self) -> list[Berth]:
        return [Berth(*row) for row in self.db.execute("SELECT id, max_length_m FROM berths ORDER BY id")]

    def berth_length(self, berth: str) -> float:
        return self.db.execute("SELECT max_length_m FROM berths WHERE id = ?", (berth,)).fetchone()[0]

    def boat_length(self, boat: str) -> float:
        return self.db.execute("SELECT length_m FROM boats WHERE name = ?", (boat,)).fetchone()[0]

    def load_for_berth(self, berth: str) -> list:
        from server.bookings import Booking

        rows = self.db.execute("SELECT id, berth, boat, arrive, nights FROM bookings WHERE berth = ?", (berth,))
        return [Booking(r[0], r[1], r[2], date.fromisoformat(r[3]), r[4]) for r in rows]

    def save(self, booking) -> None:
        self.db.execute(
            "INSERT INTO bookings VALUES (?, ?, ?, ?, ?)",
            (booking.id, booking.berth, booking.boat, booking.arrive.isoformat(), booking.nights),
        )
        self.db.commit()

    def delete(self, booking_id: str) -> None:
        self.db.execute("DELETE FROM bookings WHERE id = ?", (booking_id,))
        self.db.commit()
