"""Simulated stand-in for the thesis's Chapter 8 recordings, on the iCub's published URDF: the
generated source of the online regression protocol (``protocol: {kind: online_regression}``;
docs/thesis_ch8.md).

SIMULATION, NOT THE THESIS'S DATA. The thesis learns the wrench measured by the six-axis
force/torque (F/T) sensor of the iCub's right upper arm from the positions, velocities and
accelerations of the three shoulder joints and the elbow, recorded while the hand tracks 10 cm
circles at ≈ 0.6 m/s in the transverse (XY) and sagittal (XZ) planes, sampled at 10 Hz. Those
recordings are private; this module makes data of the same shape from the robot's model:

* **Model.** ``icub-models``' ``iCubGenova04`` URDF loaded by ``idyntree``, fixed base
  (``root_link`` still, gravity along −z of its frame), every joint but ``r_shoulder_pitch``,
  ``r_shoulder_roll``, ``r_shoulder_yaw`` and ``r_elbow`` held at zero (torso, wrist, …). The
  sensor is the URDF's ``r_arm_ft`` on the fixed joint ``r_arm_ft_sensor``; its frame is the
  child link ``r_upper_arm``'s. The links beyond it: :data:`PAYLOAD_LINKS`.
* **Trajectories.** The hand (``r_hand`` frame origin) tracks a circle of radius 10 cm at
  0.6 m/s (±10 %, slowly varying) whose centre wanders ±1–2 cm (periods of minutes), by
  second-order closed-loop inverse kinematics on idyntree's Jacobians (damped least squares;
  in the null space, a posture spring and a spring pushing back inside the URDF joint limits),
  integrated at 100 Hz and sampled at 10 Hz. The circles sit where the 4 joints can draw them
  inside their limits with the torso still (:data:`REST_POSTURES`); the wandering centre and
  speed keep the 10 000 samples from repeating one closed curve.
* **True wrench.** The Newton–Euler wrench of the links beyond the sensor, linear in their
  inertial parameters: ``w = Y(q, q̇, q̈) π`` (:meth:`ArmModel.regressor`; checked against
  idyntree's own inverse dynamics, :meth:`ArmModel.idyntree_wrench`). The sign is the URDF's
  ``child_to_parent``: the wrench the arm beyond the sensor exerts on the shoulder, in the
  sensor frame, forces in N, torques in N·m.
* **The robot differs from its CAD model.** ``π_true`` is the URDF's ``π_cad`` with every
  payload link's mass scaled by ``1 + U(−0.2, 0.2)``, its centre of mass moved by
  ``U(−1, 1)`` cm per axis and its rotational inertia about the centre of mass scaled by
  ``1 + U(−0.2, 0.2)``.
* **Unmodelled effects** (no rigid-body regressor can express them): a configuration-dependent
  elastic wrench of the cables and harness crossing the sensor, ``A [sin q_e, cos q_e,
  sin q_yaw, sin q_roll sin q_e]`` with ``A`` (6 × 4) Gaussian, 0.8 N / 0.06 N·m per entry; a
  friction-like wrench of the elbow's cable transmission along a random direction,
  ``0.3 q̇_e + 0.4 tanh(q̇_e/0.1)`` N and a tenth of that in N·m; a constant sensor offset,
  0.3 N / 0.02 N·m per axis.
* **Sensor noise.** i.i.d. Gaussian, σ = 0.3 N on forces, 0.02 N·m on torques.

All random draws come from one seed (:func:`simulate`). ``idyntree`` and ``icub-models`` (the
``robot`` extra) are imported only when a model is built; without them :func:`robot_modules`
raises a :class:`~kernreg.errors.DataError` saying ``pip install 'kernreg[robot]'``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from kernreg.errors import DataError

__all__ = ["ARM_JOINTS", "LABEL", "OUTPUT_GROUPS", "PAYLOAD_LINKS", "PLANES", "ArmData",
           "ArmModel", "RobotDeviation", "robot_modules", "simulate"]

#: How every table, figure and record of this source says what its data are.
LABEL = "SIMULATED on the iCub URDF (icub-models + idyntree), not the thesis's recordings"

ROBOT = "iCubGenova04"
#: The 4 joints whose positions, velocities and accelerations are the 12 inputs.
ARM_JOINTS = ("r_shoulder_pitch", "r_shoulder_roll", "r_shoulder_yaw", "r_elbow")
SENSOR_LINK = "r_upper_arm"  # the URDF's <frame>child</frame> of the r_arm_ft sensor
#: The links the sensor carries (the subtree beyond r_arm_ft_sensor), in the URDF.
PAYLOAD_LINKS = ("r_upper_arm", "r_elbow_1", "r_forearm", "r_wrist_1", "r_hand")
HAND_FRAME = "r_hand"
GRAVITY = 9.81
#: Per plane, the posture whose hand is the circle's centre and which the IK's null space pulls
#: towards (rad). With the torso still, a 10 cm circle stays inside the 4 joints' URDF limits
#: only in a few places (the thesis's controller also moved the torso): these were found by a
#: seeded search over postures inside the limits, keeping the trajectory that stayed inside
#: (XY: circle above and beside the shoulder, arm raised; XZ: beside and above it).
REST_POSTURES = {"xy": np.array([-0.79, 2.445, -0.156, 1.378]),
                 "xz": np.array([-0.66, 2.607, 1.076, 1.241])}
#: The planes of the circles, one simulated recording each (:func:`simulate`).
PLANES = tuple(REST_POSTURES)
SAMPLE_RATE = 10.0  # Hz, as the thesis's recordings
IK_STEPS_PER_SAMPLE = 10  # the CLIK runs at 100 Hz
LIMIT_MARGIN, LIMIT_GAIN = 0.1, 2000.0  # rad, 1/s²: the null space's joint-limit spring
DLS_DAMPING = 1e-2  # μ² of the damped least-squares pseudo-inverse (m²)
RADIUS, SPEED = 0.10, 0.6  # m, m/s
FORCE_NOISE, TORQUE_NOISE = 0.3, 0.02  # N, N·m
#: The wrench's output groups: columns (start, stop) and unit; an error is measured per group.
OUTPUT_GROUPS = {"force": ((0, 3), "N"), "torque": ((3, 6), "N·m")}


def robot_modules() -> tuple[ModuleType, ModuleType]:
    """``(icub_models, idyntree.swig)``, imported on first use (the ``robot`` extra).

    Raises
    ------
    DataError
        Either is missing or fails to import; the message says ``pip install
        'kernreg[robot]'`` (exit status 2 on the command line).
    """
    try:
        import icub_models
        import idyntree.swig as idt
    except ImportError as exc:  # ModuleNotFoundError, or a broken binding
        missing = getattr(exc, "name", None) or str(exc)
        raise DataError(f"the simulated iCub arm (thesis Chapter 8's stand-in for private "
                        f"recordings) needs idyntree and icub-models, which are not installed "
                        f"({missing}): pip install 'kernreg[robot]'") from None
    return icub_models, idt


def _skew(v: np.ndarray) -> np.ndarray:
    x, y, z = v
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def _inertia_matrix(six: np.ndarray) -> np.ndarray:
    xx, xy, xz, yy, yz, zz = six
    return np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])


def _inertia_six(M: np.ndarray) -> np.ndarray:
    return np.array([M[0, 0], M[0, 1], M[0, 2], M[1, 1], M[1, 2], M[2, 2]])


#: The 10 basis vectors' rotational-inertia matrices (idyntree's order xx, xy, xz, yy, yz, zz).
_INERTIA_BASIS = np.stack([_inertia_matrix(e) for e in np.eye(6)])


def link_regressor(v: np.ndarray, w: np.ndarray, a: np.ndarray, alpha: np.ndarray
                   ) -> np.ndarray:
    """Newton–Euler regressor of one rigid body in its own frame, vectorised over samples.

    The body's wrench (force; torque about the frame origin) is ``Φ π`` for its inertial
    parameters ``π = (m, m c, I_o)`` (mass, first moment, rotational inertia about the origin
    as xx, xy, xz, yy, yz, zz: idyntree's ``SpatialInertia.asVector``): ``f = m ā + α × h +
    ω × (ω × h)``, ``τ = I_o α + ω × I_o ω + h × ā`` with ``ā = a + ω × v``.

    Parameters
    ----------
    v, w, a, alpha : ndarray of shape (n, 3)
        Body-fixed linear and angular velocity and their time derivatives (gravity included as
        an upward acceleration of the base).

    Returns
    -------
    Phi : ndarray of shape (n, 6, 10)
    """
    n = v.shape[0]
    a_bar = a + np.cross(w, v)
    Phi = np.zeros((n, 6, 10))
    Phi[:, :3, 0] = a_bar
    for j, e in enumerate(np.eye(3)):
        Phi[:, :3, 1 + j] = np.cross(alpha, e) + np.cross(w, np.cross(w, e))
        Phi[:, 3:, 1 + j] = np.cross(e, a_bar)
    Ia = np.einsum("kij,nj->nki", _INERTIA_BASIS, alpha)
    Iw = np.einsum("kij,nj->nki", _INERTIA_BASIS, w)
    Phi[:, 3:, 4:] = np.transpose(Ia + np.cross(w[:, None, :], Iw), (0, 2, 1))
    return Phi


class ArmModel:
    """The iCub's right arm from its URDF: kinematics, the F/T sensor's regressor, the hand.

    Parameters
    ----------
    robot : str, default "iCubGenova04"
        A model of ``icub-models`` with the right-arm F/T sensor ``r_arm_ft``.
    """

    def __init__(self, robot: str = ROBOT):
        icub_models, idt = robot_modules()
        self._idt = idt
        self.urdf = str(icub_models.get_model_file(robot))
        loader = idt.ModelLoader()
        if not loader.loadModelFromFile(self.urdf):
            raise DataError(f"idyntree could not load the URDF {self.urdf}")
        self.model = loader.model().copy()
        self.n_dofs = self.model.getNrOfDOFs()
        self.dofs = [self.model.getJointIndex(name) for name in ARM_JOINTS]
        self.links = [self.model.getLinkIndex(name) for name in PAYLOAD_LINKS]
        joints = [self.model.getJoint(self.model.getJointIndex(n)) for n in ARM_JOINTS]
        #: (4, 2) position limits of ARM_JOINTS from the URDF (rad)
        self.limits = np.array([[j.getMinPosLimit(0), j.getMaxPosLimit(0)] for j in joints])
        self.cad_parameters = np.concatenate(
            [self.model.getLink(i).getInertia().asVector().toNumPy() for i in self.links])
        self._body = self._kindyn(self.model, idt.BODY_FIXED_REPRESENTATION)
        self._mixed = self._kindyn(self.model, idt.MIXED_REPRESENTATION)
        self._gravity = idt.Vector3.FromPython([0.0, 0.0, -GRAVITY])
        self._world = idt.Transform.Identity().asHomogeneousTransform()

    def _kindyn(self, model: Any, representation: Any) -> Any:
        kd = self._idt.KinDynComputations()
        kd.loadRobotModel(model)
        kd.setFrameVelocityRepresentation(representation)
        return kd

    def _set_state(self, kd: Any, q: np.ndarray, dq: np.ndarray) -> None:
        s, ds = np.zeros(self.n_dofs), np.zeros(self.n_dofs)
        s[self.dofs], ds[self.dofs] = q, dq
        idt = self._idt
        kd.setRobotState(self._world, idt.VectorDynSize.FromPython(s), idt.Twist.Zero(),
                         idt.VectorDynSize.FromPython(ds), self._gravity)

    # ------------------------------------------------------------------ the sensor's regressor
    def regressor(self, X: np.ndarray) -> np.ndarray:
        """``Y(q, q̇, q̈)`` (n, 6, 10 L): the sensor wrench is ``Y π`` for the payload's ``π``.

        Parameters
        ----------
        X : ndarray of shape (n, 12)
            ``[q, q̇, q̈]`` of :data:`ARM_JOINTS` (rad, rad/s, rad/s²).
        """
        idt = self._idt
        X = np.atleast_2d(np.asarray(X, dtype=np.float64))
        n, L = X.shape[0], len(self.links)
        twist, acc = np.empty((n, L, 6)), np.empty((n, L, 6))
        rot, pos = np.empty((n, L, 3, 3)), np.empty((n, L, 3))
        base_acc = idt.Vector6.FromPython([0.0, 0.0, GRAVITY, 0.0, 0.0, 0.0])  # gravity
        for t in range(n):
            self._set_state(self._body, X[t, :4], X[t, 4:8])
            ddq = np.zeros(self.n_dofs)
            ddq[self.dofs] = X[t, 8:]
            ddq = idt.VectorDynSize.FromPython(ddq)
            for k, name in enumerate(PAYLOAD_LINKS):
                twist[t, k] = self._body.getFrameVel(name).toNumPy()
                acc[t, k] = self._body.getFrameAcc(name, base_acc, ddq).toNumPy()
                T = self._body.getRelativeTransform(SENSOR_LINK, name)
                rot[t, k] = T.getRotation().toNumPy()
                pos[t, k] = T.getPosition().toNumPy()
        Y = np.empty((n, 6, 10 * L))
        for k in range(L):
            Phi = link_regressor(twist[:, k, :3], twist[:, k, 3:], acc[:, k, :3], acc[:, k, 3:])
            F = np.einsum("nij,njk->nik", rot[:, k], Phi[:, :3])
            tau = np.einsum("nij,njk->nik", rot[:, k], Phi[:, 3:]) + np.cross(
                pos[:, k, None, :], np.transpose(F, (0, 2, 1))).transpose(0, 2, 1)
            # child_to_parent: the payload pushes on the sensor with minus the wrench it needs
            Y[:, :3, 10 * k:10 * k + 10], Y[:, 3:, 10 * k:10 * k + 10] = -F, -tau
        return Y

    def idyntree_wrench(self, X: np.ndarray, parameters: np.ndarray) -> np.ndarray:
        """The sensor wrench by idyntree's inverse dynamics (the payload links' inertias set to
        ``parameters``): the check of :meth:`regressor`. Returns (n, 6), child_to_parent."""
        idt = self._idt
        model = self.model.copy()
        for k, i in enumerate(self.links):
            inertia = idt.SpatialInertia()
            inertia.fromVector(idt.Vector10.FromPython(parameters[10 * k:10 * k + 10]))
            model.getLink(i).setInertia(inertia)
        kd = self._kindyn(model, idt.BODY_FIXED_REPRESENTATION)
        X = np.atleast_2d(np.asarray(X, dtype=np.float64))
        sensor = model.getLinkIndex(SENSOR_LINK)
        out = np.empty((X.shape[0], 6))
        base_acc = idt.Vector6.FromPython(np.zeros(6))  # fixed base; gravity set by the state
        external, internal = idt.LinkWrenches(model), idt.LinkWrenches(model)
        external.zero()
        torques = idt.FreeFloatingGeneralizedTorques(model)
        for t in range(X.shape[0]):
            self._set_state(kd, X[t, :4], X[t, 4:8])
            ddq = np.zeros(self.n_dofs)
            ddq[self.dofs] = X[t, 8:]
            kd.inverseDynamicsWithInternalJointForceTorques(
                base_acc, idt.VectorDynSize.FromPython(ddq), external, torques, internal)
            out[t] = -internal(sensor).toNumPy()  # idyntree: the parent's wrench on the link
        return out

    # ------------------------------------------------------------------ the hand, for the IK
    def hand(self, q: np.ndarray, dq: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Hand position (3,), its Jacobian in the 4 joints (3, 4) and ``J̇q̇`` (3,), world
        frame."""
        self._set_state(self._mixed, q, dq)
        # copies: toNumPy views the memory of a temporary that dies with the statement
        transform = self._mixed.getWorldTransform(HAND_FRAME)
        position = np.array(transform.getPosition().toNumPy())
        J = self._idt.MatrixDynSize(6, 6 + self.n_dofs)
        self._mixed.getFrameFreeFloatingJacobian(HAND_FRAME, J)
        J = J.toNumPy()[:3, 6 + np.asarray(self.dofs)]
        bias = np.array(self._mixed.getFrameBiasAcc(HAND_FRAME).toNumPy()[:3])
        return position, J, bias


# ---------------------------------------------------------------------- the robot's deviations
@dataclass
class RobotDeviation:
    """How the simulated robot differs from its URDF (drawn by :meth:`draw`)."""

    true_parameters: np.ndarray
    cable_gain: np.ndarray  # (6, 4)
    friction_direction: np.ndarray  # (6,)
    offset: np.ndarray  # (6,)

    @classmethod
    def draw(cls, cad_parameters: np.ndarray, rng: np.random.Generator) -> RobotDeviation:
        true = []
        for pi in cad_parameters.reshape(-1, 10):
            m, c = pi[0], pi[1:4] / pi[0]
            I_com = _inertia_matrix(pi[4:]) - m * (c @ c * np.eye(3) - np.outer(c, c))
            m2 = m * (1.0 + rng.uniform(-0.2, 0.2))
            c2 = c + rng.uniform(-0.01, 0.01, 3)
            I2 = I_com * (1.0 + rng.uniform(-0.2, 0.2)) + m2 * (c2 @ c2 * np.eye(3)
                                                              - np.outer(c2, c2))
            true.append(np.concatenate([[m2], m2 * c2, _inertia_six(I2)]))
        scale = np.array([0.8] * 3 + [0.06] * 3)
        direction = np.concatenate([_unit(rng.standard_normal(3)),
                                    0.1 * _unit(rng.standard_normal(3))])
        return cls(np.concatenate(true), rng.standard_normal((6, 4)) * scale[:, None], direction,
                   rng.standard_normal(6) * np.array([0.3] * 3 + [0.02] * 3))

    def unmodelled(self, X: np.ndarray) -> np.ndarray:
        """The wrench no rigid-body regressor expresses (n, 6): cables, friction, offset."""
        q_roll, q_yaw, q_e, dq_e = X[:, 1], X[:, 2], X[:, 3], X[:, 7]
        cable = np.stack([np.sin(q_e), np.cos(q_e), np.sin(q_yaw), np.sin(q_roll) * np.sin(q_e)],
                         axis=1) @ self.cable_gain.T
        friction = (0.3 * dq_e + 0.4 * np.tanh(dq_e / 0.1))[:, None] * self.friction_direction
        return cable + friction + self.offset


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


# ---------------------------------------------------------------------- trajectories (CLIK)
def _static_ik(model: ArmModel, q: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Damped Newton steps taking the hand from posture ``q`` to ``point``."""
    q = q.copy()
    for _ in range(300):
        x, J, _ = model.hand(q, np.zeros(4))
        step = J.T @ np.linalg.solve(J @ J.T + 1e-3 * np.eye(3), point - x)
        q += step * min(1.0, 0.2 / max(np.linalg.norm(step), 1e-12))  # at most 0.2 rad a step
    return q


def circle_trajectory(model: ArmModel, plane: str, n_samples: int, rng: np.random.Generator
                      ) -> np.ndarray:
    """Joint trajectories whose hand tracks a 10 cm circle in ``plane`` ("xy" or "xz").

    Second-order CLIK at 100 Hz: ``q̈ = J⁺(ẍ_d + K_d(ẋ_d − Jq̇) + K_p(x_d − x) − J̇q̇) +
    (I − J⁺J)(−K_n(q − q_rest) − D_n q̇)`` with ``J⁺`` damped least squares; semi-implicit
    Euler. Returns ``[q, q̇, q̈]`` (n_samples, 12) at 10 Hz.
    """
    axes = {"xy": (0, 1), "xz": (0, 2)}[plane]
    dt = 1.0 / (SAMPLE_RATE * IK_STEPS_PER_SAMPLE)
    kp, kd, kn, dn = 400.0, 40.0, 10.0, 2.0 * np.sqrt(10.0)
    wander = 0.02 * rng.uniform(0.5, 1.0, 3)  # m
    wander_w = 2 * np.pi / rng.uniform(60.0, 180.0, 3)  # rad/s
    wander_phase = rng.uniform(0, 2 * np.pi, 3)
    speed_w, speed_phase = 2 * np.pi / rng.uniform(20.0, 60.0), rng.uniform(0, 2 * np.pi)
    e1, e2 = np.eye(3)[axes[0]], np.eye(3)[axes[1]]
    rest, dq = REST_POSTURES[plane], np.zeros(4)
    centre0 = model.hand(rest, dq)[0]

    def target(t: float, theta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        arg = wander_w * t + wander_phase
        c = centre0 + wander * np.sin(arg)
        dc, ddc = wander * wander_w * np.cos(arg), -wander * wander_w**2 * np.sin(arg)
        v = SPEED * (1.0 + 0.1 * np.sin(speed_w * t + speed_phase))
        dv = SPEED * 0.1 * speed_w * np.cos(speed_w * t + speed_phase)
        w, dw = v / RADIUS, dv / RADIUS
        radial = np.cos(theta) * e1 + np.sin(theta) * e2
        tangent = -np.sin(theta) * e1 + np.cos(theta) * e2
        return (c + RADIUS * radial, dc + RADIUS * w * tangent,
                ddc + RADIUS * (dw * tangent - w * w * radial), w)

    q = _static_ik(model, rest, target(0.0, 0.0)[0])
    out = np.empty((n_samples, 12))
    theta = 0.0
    for i in range(n_samples * IK_STEPS_PER_SAMPLE):
        t = i * dt
        xd, vd, ad, w = target(t, theta)
        x, J, bias = model.hand(q, dq)
        J_pinv = J.T @ np.linalg.inv(J @ J.T + DLS_DAMPING * np.eye(3))
        if i == 0:
            dq = J_pinv @ vd
            continue
        ddq = J_pinv @ (ad + kd * (vd - J @ dq) + kp * (xd - x) - bias)
        lo, hi = model.limits[:, 0] + LIMIT_MARGIN, model.limits[:, 1] - LIMIT_MARGIN
        away = np.maximum(lo - q, 0.0) - np.maximum(q - hi, 0.0)  # push back inside the limits
        ddq += (np.eye(4) - J_pinv @ J) @ (-kn * (q - rest) - dn * dq + LIMIT_GAIN * away)
        if i % IK_STEPS_PER_SAMPLE == 0:
            out[i // IK_STEPS_PER_SAMPLE] = np.concatenate([q, dq, ddq])
        dq = dq + dt * ddq
        q = q + dt * dq
        theta += dt * w
    out[0] = out[1]  # the first step has no CLIK acceleration yet: repeat the next sample
    return out


# ---------------------------------------------------------------------- the data set
@dataclass
class ArmData:
    """One plane's simulated recording (SIMULATED on the iCub URDF, not the thesis's data).

    Attributes
    ----------
    inputs : ndarray (n, 12)
        ``[q, q̇, q̈]`` of :data:`ARM_JOINTS`.
    wrench : ndarray (n, 6)
        The "measured" F/T wrench: rigid body (true parameters) + unmodelled + noise.
    rigid_body : ndarray (n, 6)
        ``Y π_true``: the part the parametric model can express.
    cad_wrench : ndarray (n, 6)
        ``Y π_cad``: what the URDF's inertial parameters predict.
    """

    plane: str
    inputs: np.ndarray
    wrench: np.ndarray
    rigid_body: np.ndarray
    cad_wrench: np.ndarray
    info: dict = field(default_factory=dict)


def _trajectory_info(model: ArmModel, X: np.ndarray) -> dict:
    """How the joints and the hand moved: limits, accelerations, hand speed (every 10th)."""
    q = X[:, :4]
    outside = np.maximum(model.limits[:, 0] - q, 0.0) + np.maximum(q - model.limits[:, 1], 0.0)
    speed = np.array([np.linalg.norm(model.hand(x[:4], x[4:8])[1] @ x[4:8]) for x in X[::10]])
    return {"max_outside_limits_rad": float(outside.max()),
            "max_abs_ddq": float(np.abs(X[:, 8:]).max()),
            "hand_speed_mean": float(speed.mean()), "hand_speed_min": float(speed.min()),
            "hand_speed_max": float(speed.max())}


def simulate(n_samples: int = 10_000, seed: int = 0, model: ArmModel | None = None
             ) -> tuple[ArmModel, RobotDeviation, dict[str, ArmData]]:
    """Simulate the XY and XZ recordings of one robot (one seed for every draw).

    Returns
    -------
    model, deviation, {"xy": ArmData, "xz": ArmData}
    """
    model = model or ArmModel()
    rng = np.random.default_rng(seed)
    deviation = RobotDeviation.draw(model.cad_parameters, rng)
    data = {}
    for plane in PLANES:
        X = circle_trajectory(model, plane, n_samples, rng)
        Y = model.regressor(X)
        rigid = Y @ deviation.true_parameters
        noise = rng.standard_normal((n_samples, 6)) * np.array([FORCE_NOISE] * 3
                                                                + [TORQUE_NOISE] * 3)
        data[plane] = ArmData(plane, X, rigid + deviation.unmodelled(X) + noise, rigid,
                              Y @ model.cad_parameters, _trajectory_info(model, X))
    return model, deviation, data
