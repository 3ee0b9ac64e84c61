"""Booking rules: a berth holds one boat a night, and a boat must fit the berth.

A booking covers `nights` consecutive nights from the arrival date. Two bookings of one berth
conflict when their nights overlap; the later one is refused with `BerthTaken`.
"""

from dataclasses import dataclass
from datetime import date, timedelta
from uuid import uuid4

from server.storage import BookingStore

MAX_NIGHTS = 14
"""Longest stay one booking may cover; longer stays need a seasonal contract."""


class BerthTaken(Exception):
    """The berth is already booked for one of the requested nights."""


class BoatTooLong(Exception):
    """The boat is longer than the berth allows."""


@dataclass(frozen=True)
class Booking:
    id: str
    berth: str
    boat: str
    arrive: date
    nights: int

    @property
    def departs(self) -> date:
        return self.arrive + timedelta(days=self.nights)

    def as_json(self) -> dict:
        return {"id": self.id, "berth": self.berth, "boat": self.boat, "arrive": self.arrive.isoformat(), "nights": self.nights}


def overlaps(a: Booking, b: Booking) -> bool:
    """True when the two stays share at least one night."""
    return a.arrive < b.departs and b.arrive < a.departs


def book_berth(store: BookingStore, berth: str, boat: str, arrive: str, nights: int) -> Booking:
    """Reserve `berth` for `boat`; refuses stays over MAX_NIGHTS, boats that do not fit, and overlaps."""
    if not 1 <= nights <= MAX_NIGHTS:
        raise ValueError(f"a booking covers 1 to {MAX_NIGHTS} nights")
    if store.boat_length(boat) > store.berth_length(berth):
        raise BoatTooLong(f"{boat} does not fit berth {berth}")
    booking = Booking(uuid4().hex[:8], berth, boat, date.fromisoformat(arrive), nights)
    for other in store.load_for_berth(berth):
        if overlaps(booking, other):
            raise BerthTaken(f"berth {berth} is taken from {other.arrive} for {other.nights} nights")
    store.save(booking)
    return booking


def cancel_booking(store: BookingStore, booking_id: str) -> None:
    """Remove a booking; cancelling twice is harmless."""
    store.delete(booking_id)
