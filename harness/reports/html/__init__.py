"""Each run report as one self-contained HTML page (`page.py`), its rows (`rows.py`), charts (`charts.py`),
two reports item by item (`diff.py`) and the files (`files.py`: `harness report render|open|diff`)."""
