"""Simulated stand-in for the thesis's Chapter 8 recordings — SIMULATION, NOT THE THESIS'S
DATA. The simulation moved into kernreg
(:mod:`kernreg.protocols.online_regression.icub_arm_sim`, the generated source of the online
regression protocol); this module re-exports it for the scripts and tests that import it from
here."""

from __future__ import annotations

from kernreg.protocols.online_regression.icub_arm_sim import (
    ARM_JOINTS,
    LABEL,
    PAYLOAD_LINKS,
    ArmData,
    ArmModel,
    RobotDeviation,
    circle_trajectory,
    link_regressor,
    robot_modules,
    simulate,
)

__all__ = ["ARM_JOINTS", "LABEL", "PAYLOAD_LINKS", "ArmData", "ArmModel", "RobotDeviation",
           "circle_trajectory", "link_regressor", "robot_modules", "simulate"]
