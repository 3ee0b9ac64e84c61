"""Where an encoder runs and with how many threads: decided from the machine, never hard-coded."""

from __future__ import annotations

import os
from collections.abc import Callable
from enum import StrEnum

from harness.errors import HarnessError


class Device(StrEnum):
    AUTO = "auto"
    CPU = "cpu"
    CUDA = "cuda"


def torch_sees_cuda() -> bool:
    """True when torch is installed and sees a GPU; importing torch is the only way to ask."""
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def parse_device(value: str) -> Device:
    try:
        return Device(value)
    except ValueError:
        raise HarnessError(f"unknown device {value!r}: choose one of {', '.join(Device)}") from None


def resolve_device(device: Device, cuda_available: Callable[[], bool] | None = None) -> Device:
    """`auto` becomes cuda when a GPU is visible, else cpu; `cuda` without one is an error, not a fallback.

    `cuda_available` defaults to asking torch (`torch_sees_cuda`).
    """
    sees_cuda = cuda_available or torch_sees_cuda
    if device is Device.AUTO:
        return Device.CUDA if sees_cuda() else Device.CPU
    if device is Device.CUDA and not sees_cuda():
        raise HarnessError("--device cuda: torch sees no CUDA GPU on this machine (use --device cpu or auto)")
    return device


def machine_threads() -> int:
    """CPU cores this process may run on (its affinity mask, which containers and taskset narrow)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # platforms without sched_getaffinity (macOS)
        return max(1, os.cpu_count() or 1)
