"""Memory systems under test: the protocol the kinds speak, the registry, and the built-in systems."""
