"""One module per kind of case the one runner drives (`harness.evaluation.kind.CaseKind`)."""
