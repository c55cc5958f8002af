"""Closed-form models of the papers' analyses: Bach 2013's fixed-design ridge regression with
periodic spline kernels, and the spline random-feature model of the thesis's §5.4."""

from __future__ import annotations

from kernreg.theory.fixed_design import Decay, FixedDesignModel, Risk, spectral_risk

__all__ = ["Decay", "FixedDesignModel", "Risk", "spectral_risk"]
