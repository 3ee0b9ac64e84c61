"""The reference memory-retrieval pipeline: identical over every backend, so only the engine differs."""

from harness.pipeline.context import Context, Retrieved
from harness.pipeline.memory_layer import MemoryPipeline
from harness.pipeline.settings import Mode, PipelineSettings

__all__ = ["Context", "MemoryPipeline", "Mode", "PipelineSettings", "Retrieved"]
