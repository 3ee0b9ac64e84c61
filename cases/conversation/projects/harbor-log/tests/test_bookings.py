from datetime import date

from server.bookings import Booking, overlaps


def test_back_to_back_stays_do_not_overlap():
    first = Booking("a", "B4", "Curlew", date(2026, 6, 1), 3)
    second = Booking("b", "B4", "Osprey", date(2026, 6, 4), 2)
    assert not overlaps(first, second)


def test_shared_night_overlaps():
    first = Booking("a", "B4", "Curlew", date(2026, 6, 1), 3)
    second = Booking("b", "B4", "Osprey", date(2026, 6, 3), 2)
    assert overlaps(first, second)
