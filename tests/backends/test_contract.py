"""Every registered backend against the protocol contract (tests/backends/contract.py): the same
BM25 scores (to 1e-6) and clauses on every engine, checked against one reference, and the same
filters, order, upserts and vectors. Which backends, and how closely, comes from their descriptors.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from harness.backends import registry
from harness.backends.base import Backend
from harness.backends.descriptor import BackendDescriptor, ContractNotes
from tests.backends.contract import BackendContract, contract_engine


@pytest.fixture(
    scope="module",
    params=[pytest.param(d, id=d.name, marks=getattr(pytest.mark, d.name)) for d in registry.DESCRIPTORS],
)
def descriptor(request: pytest.FixtureRequest) -> BackendDescriptor:
    return request.param


@pytest.fixture(scope="module")
def notes(descriptor: BackendDescriptor) -> ContractNotes:
    return descriptor.contract


@pytest.fixture(scope="module")
def engine(descriptor: BackendDescriptor, server_url) -> Iterator[Backend]:
    backend = contract_engine(descriptor.name, server_url)
    yield backend
    backend.close()


class TestContract(BackendContract):
    pass
