"""Running suites through the pipeline and judging each case against its expectations."""
