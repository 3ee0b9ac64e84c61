"""Each run report as one self-contained HTML page (`page.py`), its rows (`rows.py`), charts (`charts.py`)
and files (`files.py`: `harness report render|open`)."""
