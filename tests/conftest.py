"""Hypothesis profiles: CI runs are reproducible and never spend minutes shrinking a failure."""

import os

from hypothesis import Phase, settings

settings.register_profile(
    "ci",
    derandomize=True,
    print_blob=True,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target],
)
settings.load_profile("ci" if os.environ.get("CI") else "default")
