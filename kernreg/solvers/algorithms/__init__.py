"""The algorithms, one module each, ending in its ``register(AlgorithmSpec(...))``.

An algorithm module imports building blocks (:mod:`kernreg.solvers.blocks`) and the registry
only, never another algorithm module: what two algorithms share is a block
(``tests/test_architecture.py``). :mod:`kernreg.solvers` imports every module here, so that
importing kernreg registers them.
"""
