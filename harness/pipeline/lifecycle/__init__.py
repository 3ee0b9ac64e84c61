"""Memory over time: lifecycle scenarios on a simulated clock, with state kept in the backend."""
