"""HTTP routes of the Harbor Log API.

Every route answers JSON. Booking changes go through `bookings`, which enforces the rules; the
harbormaster-only routes check the bearer token with `auth.require_harbormaster` first.
"""

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from server import auth, bookings, tides
from server.storage import BookingStore

store = BookingStore("harbor.db")


async def list_berths(request: Request) -> JSONResponse:
    """GET /api/berths: every berth with its length limit and whether it is free tonight."""
    return JSONResponse([berth.as_json() for berth in store.berths()])


async def create_booking(request: Request) -> JSONResponse:
    """POST /api/bookings: reserve a berth for a boat; 409 when the nights overlap a booking."""
    body = await request.json()
    try:
        booking = bookings.book_berth(store, body["berth"], body["boat"], body["arrive"], body["nights"])
    except bookings.BerthTaken as exc:
        return JSONResponse({"error": str(exc)}, status_code=409)
    return JSONResponse(booking.as_json(), status_code=201)


async def cancel_booking(request: Request) -> JSONResponse:
    """DELETE /api/bookings/{id}: harbormaster only; frees the berth for those nights."""
    auth.require_harbormaster(request.headers.get("authorization", ""))
    bookings.cancel_booking(store, request.path_params["id"])
    return JSONResponse({"cancelled": request.path_params["id"]})


async def tide_window(request: Request) -> JSONResponse:
    """GET /api/tides/{day}: the hours a boat of the given draft can cross the bar."""
    draft = float(request.query_params.get("draft", "1.5"))
    return JSONResponse(tides.safe_windows(request.path_params["day"], draft))


app = Starlette(
    routes=[
        Route("/api/berths", list_berths),
        Route("/api/bookings", create_booking, methods=["POST"]),
        Route("/api/bookings/{id}", cancel_booking, methods=["DELETE"]),
        Route("/api/tides/{day}", tide_window),
    ]
)
