"""Case kinds the one runner drives (`harness.evaluation.kind.CaseKind`), one module each."""
