"""Building blocks of the solvers: what more than one algorithm needs, or what an algorithm is
made of without being an algorithm itself.

The base estimator class, kernel arrays handed from fit to fit (buffers), Cholesky updates,
rows spread over a Dask cluster, the iteration loop, the K_nm operators and the strategy cost
model, linear algebra, metrics, the Nyström set-up, center samplers and leverage scores,
stopping rules, acceleration, the λ path, config schema fragments and the hold-out split.
A block never imports an algorithm (``tests/test_architecture.py``).
"""
