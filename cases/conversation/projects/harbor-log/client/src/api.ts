// Calls to the Harbor Log API. Every request goes to the same origin under /api.

export interface Berth {
  id: string;
  max_length_m: number;
}

export interface BookingRequest {
  berth: string;
  boat: string;
  arrive: string;
  nights: number;
}

const BASE = "/api";

export async function fetchBerths(): Promise<Berth[]> {
  const response = await fetch(`${BASE}/berths`);
  return response.json();
}

export async function createBooking(request: BookingRequest): Promise<{ id: string }> {
  const response = await fetch(`${BASE}/bookings`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(request),
  });
  if (response.status === 409) {
    throw new Error("That berth is already booked for those nights");
  }
  return response.json();
}

export async function fetchTideWindows(day: string, draft: number) {
  const response = await fetch(`${BASE}/tides/${day}?draft=${draft}`);
  return response.json();
}
