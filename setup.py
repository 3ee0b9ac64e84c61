"""Packaging beyond pyproject.toml: the top-level cases/, containers/ and docker/ folders go into the
wheel as package data `harness.resources.<name>` (harness/resources/ reads them), so an installed
harness runs without a checkout. Everything else is declared in pyproject.toml."""

from setuptools import find_namespace_packages, find_packages, setup

DATA_FOLDERS = ("cases", "containers", "docker")  # as harness.resources.DATA_FOLDERS


def data_packages(folder: str) -> list[str]:
    """The folder and its subfolders as packages (setuptools treats every folder as one)."""
    inner = find_namespace_packages(where=folder)
    return [f"harness.resources.{folder}", *(f"harness.resources.{folder}.{p}" for p in inner)]


setup(
    packages=[*find_packages(include=["harness", "harness.*"]), *(p for d in DATA_FOLDERS for p in data_packages(d))],
    package_dir={f"harness.resources.{d}": d for d in DATA_FOLDERS},
    package_data={
        **{f"harness.resources.{d}": ["**/*"] for d in DATA_FOLDERS},
        "harness.reports.html": ["templates/*"],  # the report page's template, style and script
        "harness.reports": ["published_systems.json"],  # the leaderboard's published figures
    },
)
