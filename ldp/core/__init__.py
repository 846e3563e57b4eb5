"""The layer everything else builds on: declared parameters, the registries, randomness and named streams,
immutable results, cancellation, executors and the error types (nothing here knows a mechanism)."""

__all__: list[str] = []
