"""Run reports: JSON for machines, Markdown for people, side-by-side comparisons."""
