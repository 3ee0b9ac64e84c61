"""Harbor Log server: the HTTP API over the booking rules."""
