"""The protocols beyond the hold-out core, one folder each, registered on import.

Each folder is one protocol: its config (schema and defaults), its trial, its preflight and its
summary (table, figures, data files), ending in one
:func:`~kernreg.experiment.protocol.register_protocol` call in its ``__init__``. A user's
protocol registers through the same call from outside the package.

- ``class_incremental``: thesis Chapter 7's stream (Table 7.1, Figure 7.3), ``protocol:
  {kind: streaming}``;
- ``online_regression``: thesis Chapter 8's test-then-update regression on a simulated iCub
  arm (Figure 8.4), ``protocol: {kind: online_regression}``.
"""

from kernreg.protocols import class_incremental, online_regression

__all__ = ["class_incremental", "online_regression"]
