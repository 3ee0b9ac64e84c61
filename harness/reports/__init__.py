"""Run reports: JSON for machines, Markdown and an HTML page for people, side-by-side comparisons."""
