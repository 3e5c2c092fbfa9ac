"""The state layer: one module per state family, each owning its type's construction by the
kernel, its merge, its validated export and every metric derived from it.

``confusion`` (K x K label pair counts) and ``grouped`` (G x K x K, per group);
``multilabel`` (per-label counts of indicator matrices); ``prf`` (precision, recall, F and
the report, from per-label sums that both label states provide); ``bins`` (calibration bins);
``sums`` (regression sums); ``ranking`` (sorted score summary); ``sketch`` (quantile buckets, or every value for exact quantiles).
The public faces (one-shot functions, :mod:`fastmetrics.streaming`, :mod:`fastmetrics.dask`,
the command line) only validate, build a state and call a derivation.
"""
