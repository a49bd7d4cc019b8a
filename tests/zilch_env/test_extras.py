"""Issue 36: a feature whose extra is not installed says which extra and the command that installs
it (zilch_env.extras.require), as an ImportError, never a bare ModuleNotFoundError."""

from __future__ import annotations

import sys

import pytest

from zilch_env.extras import EXTRAS, MissingExtraError, install_command, require


def test_an_installed_module_is_returned():
    assert require("json", "eval", "the plots") is sys.modules["json"]


def test_a_missing_module_names_the_feature_the_extra_and_the_command(monkeypatch):
    # importing them raises ModuleNotFoundError (both: an earlier test may have imported pyplot)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(MissingExtraError) as e:
        require("matplotlib.pyplot", "eval", "writing the plots", otherwise="or skip them: --no-plots")
    assert str(e.value) == "writing the plots needs the eval extra: pip install 'zilch-rl[eval]' (or skip them: --no-plots)"
    assert isinstance(e.value, ImportError) and e.value.extra == "eval" and e.value.name == "matplotlib.pyplot"


def test_a_module_that_fails_inside_is_not_a_missing_extra(tmp_path, monkeypatch):
    (tmp_path / "zilch_broken_mod.py").write_text("import zilch_no_such_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as e:
        require("zilch_broken_mod", "web", "the test")
    assert not isinstance(e.value, MissingExtraError) and e.value.name == "zilch_no_such_dependency"


def test_the_extras_are_pyprojects():
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
    assert set(EXTRAS) == set(project["optional-dependencies"]) - {"dev"}
    assert install_command("web") == "pip install 'zilch-rl[web]'"
    with pytest.raises(ValueError, match="not an extra"):
        require("json", "plots", "the plots")


_BLOCK = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Block())
"""


@pytest.mark.parametrize("blocked, code, extra", [
    (("pyspiel",), "import zilch_env.envs.openspiel", "openspiel"),
    (("PIL",), "import gymnasium as gym, zilch_env; e = gym.make('Zilch-v2', render_mode='rgb_array'); "
               "e.reset(seed=0); e.render()", "eval"),
])
def test_features_without_their_extra_name_it(blocked, code, extra):
    """Without its library (hidden from the import system here) a feature names its extra."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _BLOCK.format(blocked=set(blocked)) + code],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode != 0
    assert "MissingExtraError" in out.stderr and f"pip install 'zilch-rl[{extra}]'" in out.stderr, out.stderr[-800:]
