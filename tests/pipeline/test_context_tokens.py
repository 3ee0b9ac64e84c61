"""A belief context's size is counted as every token count of the harness is: in cl100k_base
tokens (`harness/tokens.py`), so a belief report and a conversation report count alike."""

from __future__ import annotations

from harness import tokens
from harness.backends.embedded import EmbeddedBackend
from harness.models import Memory
from harness.pipeline import MemoryPipeline, PipelineSettings
from harness.pipeline.memory_layer import Request

CONTENT = "Deploys go through `kubectl apply -f k8s/` on staging first; prod needs a second approver."


def test_a_belief_context_is_counted_in_cl100k_base_tokens() -> None:
    memory = Memory.model_validate(
        {
            "id": "m-deploy",
            "user": "u",
            "type": "entity",
            "scopes": ["domain:code"],
            "name": "deploys",
            "content": CONTENT,
        }
    )
    pipeline = MemoryPipeline.open(EmbeddedBackend(), "tokens", PipelineSettings())
    pipeline.load([memory])

    context = pipeline.retrieve(Request("u", ("domain:code",), "how do deploys work"))

    assert context.relevant_ids == ("m-deploy",)
    assert context.prelude is None
    assert context.tokens == tokens.count(CONTENT)  # the only text in the context: one belief's content
