// The skipper's booking form: pick a berth, name the boat, choose arrival and nights.

import { useState } from "preact/hooks";
import { createBooking, type Berth } from "./api";
import { formatLength } from "./format";

export function BookingForm({ berths }: { berths: Berth[] }) {
  const [berth, setBerth] = useState(berths[0]?.id ?? "");
  const [boat, setBoat] = useState("");
  const [arrive, setArrive] = useState("");
  const [nights, setNights] = useState(1);
  const [message, setMessage] = useState("");

  async function submit(event: Event) {
    event.preventDefault();
    try {
      const booking = await createBooking({ berth, boat, arrive, nights });
      setMessage(`Booked: reference ${booking.id}`);
    } catch (error) {
      setMessage((error as Error).message);
    }
  }

  return (
    <form onSubmit={submit}>
      <select value={berth} onChange={(e) => setBerth((e.target as HTMLSelectElement).value)}>
        {berths.map((b) => (
          <option value={b.id}>{b.id} - up to {formatLength(b.max_length_m)}</option>
        ))}
      </select>
      <input placeholder="Boat name" value={boat} onInput={(e) => setBoat((e.target as HTMLInputElement).value)} />
      <input type="date" value={arrive} onInput={(e) => setArrive((e.target as HTMLInputElement).value)} />
      <input type="number" min={1} max={14} value={nights} onInput={(e) => setNights(Number((e.target as HTMLInputElement).value))} />
      <button type="submit">Book berth</button>
      <p>{message}</p>
    </form>
  );
}
