"""The one thing pyproject.toml cannot say: the paper configs (``configs/``, top level in the
repository) travel in the wheel as the ``kernreg/configs`` folder, so ``kernreg run NAME``
works after ``pip install`` (kernreg.config.library)."""

from setuptools import find_namespace_packages, setup

setup(
    packages=[*find_namespace_packages(include=["kernreg", "kernreg.*"],
                                       exclude=["*.__pycache__"]), "kernreg.configs"],
    package_dir={"kernreg.configs": "configs"},
)
