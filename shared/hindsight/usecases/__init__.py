"""Use cases: one module per operation; they depend on domain and ports only."""
