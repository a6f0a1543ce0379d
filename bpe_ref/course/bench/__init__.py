"""Benchmarks: each measures bpe_ref against its peers (HF ``tokenizers``, ``tiktoken``) in the
same run, and reports medians and ratios, never absolute targets (machines are shared and noisy).

Results go under ``theory/benchmarks/`` (linked from the README); each results page is the template
``NAME.md`` beside its benchmark with the run's tables written in. The mechanics (interleaved rounds,
medians, per-round ratios, fitted exponents, peak memory) are :mod:`bpe_ref.measure`'s, step 09's
module; what the benchmarks and the timing figures share besides is :mod:`.common`.
"""
