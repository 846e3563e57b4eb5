"""One-time categorical frequency oracles: GRR, the unary encodings (SUE, OUE, THE), SHE, SS, local hashing
(BLH, OLH) and Hadamard response; their shared base is :class:`ldp.mechanisms.frequency.base.FrequencyOracle`."""

__all__: list[str] = []
