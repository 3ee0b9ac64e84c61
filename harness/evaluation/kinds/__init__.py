"""One module per kind of case, each implementing `harness.evaluation.kind.CaseKind`: belief
snapshots and sessions (`beliefs`), questions over a haystack (`haystack`), conversation turns
over projects (`conversation`)."""
