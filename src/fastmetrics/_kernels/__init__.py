"""The compiled kernels, private to fastmetrics (their signatures may change at any time).

Each module is named for the state it fills: ``confusion`` (label pair counts, plain and per
group), ``multilabel`` (per-label counts of indicator matrices), ``bins`` (calibration bins),
``sums`` (regression sums), ``ranking`` (sorted score summaries), ``sketch`` (quantile
buckets); ``select`` (order statistics), ``lm`` (log-likelihoods of logits) and ``openmp``
(what the build knows about OpenMP) serve the rest. A module's ``.pxd`` holds the layout of
the state it fills (``cpdef enum``), read by Cython and by Python (``sums.MEAN``) alike; its
``.pyi`` stub notes the real memoryview types.
"""
