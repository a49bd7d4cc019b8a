"""The one build step pyproject.toml cannot say: the trained policies the package ships.

Every checkpoint folder ``checkpoints/NAME/`` holding a ``policy.onnx`` and its ``policy.json`` goes
into the wheel as ``agents/policies/NAME/`` (what ``ppo:NAME`` plays: agents.learned.shipped_policies);
the training checkpoints (``best/model.zip``) and the reports stay out. ``checkpoints/`` stays the one
copy in the repository; an editable install reads it in place. MANIFEST.in puts the same files in
the sdist, so a wheel built from the sdist has them too.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

POLICY_FILES = ("policy.onnx", "policy.json")


def shipped_checkpoints() -> list[Path]:
    """The checkpoint folders with both policy files, by name."""
    return sorted(d for d in Path("checkpoints").iterdir()
                  if d.is_dir() and all((d / f).is_file() for f in POLICY_FILES))


class BuildPyWithPolicies(build_py):
    """setuptools' build_py, then each shipped checkpoint's policy files into agents/policies/NAME/."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # agents.learned reads checkpoints/ in the source tree
        for d in shipped_checkpoints():
            target = Path(self.build_lib, "agents", "policies", d.name)
            self.mkpath(str(target))
            for f in POLICY_FILES:
                self.copy_file(str(d / f), str(target / f))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        if not getattr(self, "editable_mode", False):
            outputs += [str(Path(self.build_lib, "agents", "policies", d.name, f))
                        for d in shipped_checkpoints() for f in POLICY_FILES]
        return outputs


setup(cmdclass={"build_py": BuildPyWithPolicies})
