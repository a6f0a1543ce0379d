"""Benchmarks: each measures bpe_ref against its peers (HF ``tokenizers``, ``tiktoken``) in the
same run, and reports medians and ratios, never absolute targets (machines are shared and noisy).

Results go under ``theory/benchmarks/`` (linked from the README). The mechanics (interleaved rounds,
medians, per-round ratios, fitted exponents) are :mod:`bpe_ref.measure`'s, step 09's module.
"""
