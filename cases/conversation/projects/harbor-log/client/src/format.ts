// Display helpers: lengths in metres and feet, tide windows as clock times.

export function formatLength(metres: number): string {
  const feet = metres * 3.28084;
  return `${metres.toFixed(1)} m (${Math.round(feet)} ft)`;
}

function clock(hour: number): string {
  const h = Math.floor(hour);
  const m = Math.round((hour - h) * 60);
  return `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`;
}

export function formatTideWindow(window: { from: number; to: number }): string {
  return `${clock(window.from)}-${clock(window.to)}`;
}
