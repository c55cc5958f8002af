"""The regime advisor (``kernreg advise``): λ*, degrees of freedom, the NYTRO Figure 1 map and
the solver it predicts to be fastest. Imports matplotlib only for the figure
(:mod:`kernreg.advise.figure`)."""

from kernreg.advise.advisor import (
    REGIMES,
    Advice,
    c1_curve,
    c2_curve,
    degrees_of_freedom,
    estimate_regime,
    flat_path_lambda,
    iterations_to_reach,
    predict_fastest,
    subsample_kernel,
    useful_sigma_range,
)

__all__ = ["REGIMES", "Advice", "c1_curve", "c2_curve", "degrees_of_freedom",
           "estimate_regime", "flat_path_lambda", "iterations_to_reach", "predict_fastest",
           "subsample_kernel", "useful_sigma_range"]
