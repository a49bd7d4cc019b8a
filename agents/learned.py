"""The trained agents: ``ppo:NAME`` (a policy shipped with the package) and ``ppo:PATH``, the CPU
opponent exported by :mod:`agents.export`.

    make_agent("ppo:zonk", "zonk")                         # the shipped zonk policy
    make_agent("ppo:checkpoints/zonk", "zonk")             # a checkpoint directory: its policy.onnx
    make_agent("ppo:checkpoints/zonk/policy.onnx", "zonk")
    make_agent("ppo:checkpoints/zonk/best/model.zip", "zonk")   # an SB3 checkpoint (needs torch)

``NAME`` is the name of a shipped policy (:func:`shipped_policies`: ``zonk``, ``zonk-score``,
``any``, ...; each checkpoint of the repository's ``checkpoints/NAME/`` with a ``policy.onnx``). An
installed package holds them in ``agents/policies/NAME/`` (setup.py copies them into the wheel); a
source checkout reads ``checkpoints/NAME/``. A bare name means the shipped policy even when the
current directory has a folder of that name (``ppo:./zonk`` names the folder).

``PATH`` (relative to the current directory, else to the repository root) is a directory (its
``policy.onnx`` if present, else its best SB3 checkpoint ``best/model.zip``, else
``latest/model.zip``), an ``.onnx`` file (with its ``.json`` beside it), or an SB3 ``.zip`` (with the
``train.json`` that ``train/ppo.py`` writes beside it). ``checkpoints/NAME[/FILE]`` also finds a
shipped policy's files in an installed package, which has no ``checkpoints/`` folder.

An ONNX policy is played with onnxruntime (the ``agents`` extra) and without torch or
stable-baselines3 (the web game and the terminal game need neither): one decision at a time by a
compiled loop (below). An SB3 checkpoint loads torch and sb3-contrib (the ``train`` extra) and plays
the same deterministic masked action. Without its extra, a policy raises
:class:`MissingAgentExtraError` naming the extra and the command that installs it.

Each decision: the observation of the seat to move (:func:`zilch_env.observe`) and the legal mask
go in, the policy's highest-scoring legal action comes out (deterministic: the ``rng`` is unused).

One decision of an ONNX policy (what the game server asks for) is computed by a compiled loop over
the graph's own weights (:class:`DenseMLP`, read with the ``onnx`` package when it is installed and
the graph is the plain masked MLP that :mod:`agents.export` writes): a third of an onnxruntime
call's fixed cost. It computes in float32 as onnxruntime does, summed in another order, and leaves
the decision to onnxruntime whenever the two best legal logits are closer than :data:`TIE_MARGIN`,
far above the rounding by which the two sums differ: the move is always onnxruntime's. A batch of
decisions (``OnnxPolicy.actions``) is one onnxruntime run.

A policy plays only the rules it was trained on: the agent refuses a game whose ruleset differs from
the policy's (any rule; the ruleset's name does not count), naming the differences. A policy trained
on the distribution of rulesets (``train/ppo.py --ruleset any``; its ``ruleset`` is
``{"name": "any", "distribution": "any", ...}``) reads the rules in its observation (layout 4 and
later) and plays every ruleset. It plays any
number of players (the observation describes them), though it plays best at the count it was trained
for.

Observation layouts: every layout extends the one before it at the end (layout 2 = layout 1's 151
values + ``keep_points`` and ``keep_dice``; layout 3 = layout 2's 279 + ``keep_lead``, ``keep_ahead``
and ``keep_target``), so a policy of an older layout ``v`` reads the first
``zilch_env.engine.observation.OBS_SIZES[v]`` values of each observation. The shipped score agents
(``obs_version`` 2) play this way. A layout this code does not know (newer, or no ``obs_version``)
is refused, naming the versions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from zilch_env.jit import njit

from zilch_env import NUM_ACTIONS, GameState, Ruleset
from zilch_env.engine.observation import OBS_SIZES, OBS_VERSION, observe
from zilch_env.extras import MissingExtraError, require

from agents.base import AgentSpecError, register_agent

__all__ = ["LearnedAgent", "OnnxPolicy", "SB3Policy", "DenseMLP", "MissingAgentExtraError", "PolicyMismatchError",
           "POLICY_FILES", "load_policy", "policies_folder", "resolve_policy_path", "shipped_policies",
           "check_compatible", "policy_obs_size", "rule_differences", "TIE_MARGIN"]


#: The repository root: a relative PATH not found from the current directory is looked up here.
_ROOT = Path(__file__).resolve().parents[1]
#: The shipped policies in an installed package, one folder per name (setup.py fills it in the wheel).
_PACKAGED = Path(__file__).resolve().parent / "policies"
#: The files of a shipped policy.
POLICY_FILES = ("policy.onnx", "policy.json")


class PolicyMismatchError(AgentSpecError):
    """A policy trained for other rules or another observation layout than the game's."""


class MissingAgentExtraError(AgentSpecError, MissingExtraError):
    """A policy whose runtime (onnxruntime: the ``agents`` extra; sb3-contrib: ``train``) is not
    installed: an agent that cannot be made here (AgentSpecError) and a missing extra (ImportError)."""


def policies_folder() -> Path:
    """The folder of the shipped policies (a folder per name): the installed package's
    ``agents/policies/``, else (a source checkout) the repository's ``checkpoints/``."""
    return _PACKAGED if _PACKAGED.is_dir() else _ROOT / "checkpoints"


def shipped_policies() -> dict[str, Path]:
    """``{name: folder}`` of the trained policies shipped with the package, by name: each folder (in
    :func:`policies_folder`) holds a ``policy.onnx`` and its ``policy.json``."""
    base = policies_folder()
    if not base.is_dir():
        return {}
    return {d.name: d for d in sorted(base.iterdir())
            if d.is_dir() and all((d / f).is_file() for f in POLICY_FILES)}


def _read_meta(meta_path: Path, policy: Path) -> dict:
    """A policy's metadata (``policy.json`` or ``train.json``): a JSON object, else an AgentSpecError
    naming the file and the problem."""
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except OSError as e:
        raise AgentSpecError(f"{policy}: its metadata {meta_path} cannot be read: {e.strerror or e}") from None
    except (UnicodeDecodeError, ValueError) as e:
        raise AgentSpecError(f"{policy}: its metadata {meta_path} is not valid JSON ({e}); the file is "
                             f"damaged or truncated: export (or train) the policy again") from None
    if not isinstance(meta, dict):
        raise AgentSpecError(f"{policy}: its metadata {meta_path} is not a JSON object")
    return meta


def _check_sha256(path: Path, meta: dict, meta_path: Path) -> None:
    """The policy file against the sha256 its metadata records (agents.export writes it)."""
    import hashlib

    want = meta.get("sha256")
    if want is None:
        return
    try:
        got = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as e:
        raise AgentSpecError(f"{path}: cannot be read: {e.strerror or e}") from None
    if got != want:
        raise AgentSpecError(f"{path}: its sha256 is {got[:16]}..., not the {str(want)[:16]}... that "
                             f"{meta_path.name} records: the file is damaged or was replaced; export it again "
                             f"(python -m agents.export)")


def resolve_policy_path(path: str | Path) -> Path:
    """The file a ``ppo:PATH`` names: an ``.onnx`` or ``.zip`` as given; for a directory its
    ``policy.onnx``, else ``best/model.zip``, ``latest/model.zip``, ``model.zip``."""
    p = Path(path)
    shipped = shipped_policies()
    if str(path) in shipped:
        p = shipped[str(path)]  # ppo:zonk: the shipped policy (the folder zonk here is ppo:./zonk)
    elif not p.exists() and not p.is_absolute():
        if (_ROOT / p).exists():
            p = _ROOT / p  # checkpoints/zonk names the repository's checkpoint from any directory
        elif len(p.parts) >= 2 and p.parts[0] == "checkpoints" and p.parts[1] in shipped:
            p = shipped[p.parts[1]].joinpath(*p.parts[2:])  # the same path in an installed package
    if p.is_file():
        if p.suffix not in (".onnx", ".zip"):
            raise AgentSpecError(f"ppo:{path}: give a policy .onnx, an SB3 .zip or a checkpoint directory")
        return p
    if p.is_dir():
        for cand in (p / "policy.onnx", p / "best" / "model.zip", p / "latest" / "model.zip", p / "model.zip"):
            if cand.is_file():
                return cand
        raise AgentSpecError(f"ppo:{path}: no policy.onnx, best/model.zip, latest/model.zip or model.zip "
                             "in this directory")
    raise AgentSpecError(f"ppo:{path}: no such file or directory, nor a shipped policy's name "
                         f"({', '.join(shipped) or 'none shipped'})")


def _flat(d: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(d, dict):
        out: dict[str, Any] = {}
        for k, v in d.items():
            out.update(_flat(v, f"{prefix}{k}."))
        return out
    return {prefix[:-1]: d}


def rule_differences(a: dict[str, Any], b: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """The rules two rulesets (as ``Ruleset.to_dict()`` gives them) set differently, by dotted key
    in order, with each side's value (None where a side lacks the key); the name does not count."""
    fa = _flat({k: v for k, v in a.items() if k != "name"})
    fb = _flat({k: v for k, v in b.items() if k != "name"})
    return [(k, fa.get(k), fb.get(k)) for k in sorted(fa.keys() | fb.keys()) if fa.get(k) != fb.get(k)]


def policy_obs_size(meta: dict[str, Any], where: str) -> int:
    """How many leading observation values the policy reads: ``OBS_SIZES`` of its ``obs_version``
    (layouts extend each other at the end). Raises :class:`PolicyMismatchError` for a layout this
    code cannot write, or an ``obs_size`` that disagrees with the version."""
    version = meta.get("obs_version")
    known = ", ".join(str(v) for v in sorted(OBS_SIZES))
    if isinstance(version, bool) or version not in OBS_SIZES:
        raise PolicyMismatchError(
            f"{where}: the policy reads observation layout {version}, this game writes layout "
            f"{OBS_VERSION} and can feed layouts {known}; retrain or re-export it with this version "
            "of zilch-rl")
    size = OBS_SIZES[version]
    if meta.get("obs_size", size) != size:
        raise PolicyMismatchError(
            f"{where}: the policy says observation layout {version} but obs_size {meta['obs_size']}; "
            f"layout {version} has {size} values")
    return size


def check_compatible(meta: dict[str, Any], ruleset: Ruleset, where: str) -> int:
    """Raise :class:`PolicyMismatchError` unless the policy's rules are the game's and its layout is
    one this code can feed; returns the number of leading observation values the policy reads."""
    size = policy_obs_size(meta, where)
    if meta["ruleset"].get("distribution") == "any":
        if size < OBS_SIZES[4]:
            raise PolicyMismatchError(f"{where}: a policy for any ruleset must read the rules (observation "
                                      f"layout 4 or later), but it reads layout {meta.get('obs_version')}")
        return size
    # the game's rules as JSON holds them (integer keys such as die faces become strings)
    diff = rule_differences(meta["ruleset"], json.loads(json.dumps(ruleset.to_dict())))
    if diff:
        shown = "; ".join(f"{k}: policy {mine!r}, game {game!r}" for k, mine, game in diff[:6])
        more = f" and {len(diff) - 6} more" if len(diff) > 6 else ""
        raise PolicyMismatchError(
            f"{where} was trained for the rules of {meta['ruleset'].get('name')!r}, not this game's "
            f"({ruleset.name!r}): {shown}{more}. Train a policy for these rules "
            f"(python train/ppo.py --ruleset ...) or play the rules it knows")
    return size


#: One decision is the compiled loop's only when its two best legal logits are at least this far
#: apart; closer, onnxruntime decides. The two computations' logits of the shipped policies differ
#: by at most about 2e-5 (bench/export_latency.py --check measures it, tests/test_learned_fast.py
#: bounds it), so a gap of 1e-3 orders the two best the same in both.
TIE_MARGIN = 1e-3


@njit(cache=True)
def _mlp_action(x, mask, weights, biases, dims, relu, margin):
    """The legal action of the highest logit of a dense MLP, or -1 when the best two legal logits
    are closer than ``margin`` (or no action is legal). ``dims`` are the layer widths (input,
    hidden..., actions); layer ``l`` maps ``h`` to ``h @ weights[l, :dims[l], :dims[l + 1]] +
    biases[l, :dims[l + 1]]`` (float32, as onnxruntime computes), and the hidden layers apply tanh
    (``relu``: max(0, .)). Zero inputs are skipped: most of an observation is zeros."""
    layers = dims.shape[0] - 1
    width = max(weights.shape[1], weights.shape[2])
    h = np.empty(width, dtype=np.float32)
    g = np.empty(width, dtype=np.float32)
    for j in range(dims[0]):
        h[j] = x[j]
    for lay in range(layers):
        n_in = dims[lay]
        n_out = dims[lay + 1]
        for k in range(n_out):
            g[k] = biases[lay, k]
        for j in range(n_in):
            v = h[j]
            if v != 0.0:
                for k in range(n_out):
                    g[k] += v * weights[lay, j, k]
        if lay < layers - 1:
            for k in range(n_out):
                h[k] = max(g[k], np.float32(0.0)) if relu else np.tanh(g[k])
    best = -1
    top = -np.inf
    second = -np.inf
    for a in range(dims[layers]):
        if mask[a]:
            v = g[a]
            if v > top:
                second = top
                top = v
                best = a
            elif v > second:
                second = v
    if best < 0 or top - second < margin:
        return -1
    return best


class DenseMLP:
    """The exported masked policy graph as plain dense layers: ``obs -> (Gemm, tanh or relu)* -> Gemm
    -> masked argmax``, the graph :mod:`agents.export` writes. :meth:`read` returns None for any
    other graph (or without the ``onnx`` package): onnxruntime then plays every decision."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], relu: bool):
        """``layers``: each layer's ``(weight [out, in], bias [out])``, as ONNX's Gemm with transB
        holds them."""
        self.dims = np.array([layers[0][0].shape[1]] + [w.shape[0] for w, _ in layers], dtype=np.int64)
        width = int(self.dims.max())
        self.weights = np.zeros((len(layers), width, width), dtype=np.float32)
        self.biases = np.zeros((len(layers), width), dtype=np.float32)
        for i, (w, b) in enumerate(layers):
            self.weights[i, : w.shape[1], : w.shape[0]] = w.T
            self.biases[i, : b.shape[0]] = b
        self.relu = relu

    @classmethod
    def read(cls, path: str | Path) -> "DenseMLP | None":
        try:
            import onnx
            from onnx import numpy_helper
        except ImportError:
            return None
        model = onnx.load(str(path))
        init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        nodes = list(model.graph.node)
        ops = [n.op_type for n in nodes]
        acts = set(ops[3:-5:2])
        if (len(ops) < 8 or ops[:2] != ["Cast", "Flatten"] or ops[-5:] != ["Not", "Cast", "Constant", "Where", "ArgMax"]
                or ops[2:-5:2] != ["Gemm"] * ((len(ops) - 6) // 2) or len(acts) != 1 or not acts <= {"Tanh", "Relu"}
                or len(ops) % 2):
            return None
        # one chain: every node reads the one before it (the Where reads the last Gemm's logits)
        if any(nodes[i].input[0] != nodes[i - 1].output[0] for i in range(1, len(nodes) - 5)):
            return None
        if nodes[-2].input[2] != nodes[-6].output[0] or nodes[-1].input[0] != nodes[-2].output[0]:
            return None
        attrs = {n.name: {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute} for n in nodes}
        if attrs[nodes[-1].name].get("keepdims", 1) != 0 or attrs[nodes[-1].name].get("axis", 0) not in (1, -1):
            return None
        layers: list[tuple[np.ndarray, np.ndarray]] = []
        for n in nodes[2:-5:2]:
            a = attrs[n.name]
            if (a.get("transB") != 1 or a.get("transA", 0) != 0 or a.get("alpha", 1.0) != 1.0
                    or a.get("beta", 1.0) != 1.0 or n.input[1] not in init or n.input[2] not in init):
                return None
            w, b = init[n.input[1]], init[n.input[2]]
            if (w.dtype != np.float32 or w.ndim != 2 or b.shape != (w.shape[0],)
                    or (layers and w.shape[1] != layers[-1][0].shape[0])):
                return None
            layers.append((w, b))
        const = attrs[nodes[-3].name].get("value")
        arg = attrs[nodes[-1].name]
        if (const is None or numpy_helper.to_array(const).size != 1 or float(numpy_helper.to_array(const)) > -1e7
                or arg.get("select_last_index", 0) != 0 or layers[-1][0].shape[0] != NUM_ACTIONS):
            return None
        return cls(layers, "Relu" in acts)

    def action(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """The highest legal logit's action, or -1 when two are closer than :data:`TIE_MARGIN`."""
        return _mlp_action(obs, mask, self.weights, self.biases, self.dims, self.relu, TIE_MARGIN)


class OnnxPolicy:
    """An exported policy run by onnxruntime: ``actions(obs, masks)`` for a batch, one thread.

    ``obs`` may be current observations (:data:`~zilch_env.engine.observation.OBS_SIZE` values) or
    already cut to the policy's ``obs_size``: the policy reads the first ``obs_size`` values."""

    def __init__(self, path: str | Path):
        ort = require("onnxruntime", "agents", f"the trained policy {path}", error=MissingAgentExtraError)
        self.path = Path(path)
        meta_path = self.path.with_suffix(".json")
        if not meta_path.is_file():
            raise AgentSpecError(f"{self.path}: its metadata {meta_path.name} is missing (agents.export "
                                 "writes both; the rules and layout are checked from it)")
        self.meta = _read_meta(meta_path, self.path)
        _check_sha256(self.path, self.meta, meta_path)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        try:
            self.session = ort.InferenceSession(str(self.path), sess_options=opts,
                                                providers=["CPUExecutionProvider"])
        except Exception as e:  # onnxruntime raises its own kinds for a file that is not a model
            raise AgentSpecError(f"{self.path}: not a valid ONNX model ({type(e).__name__}: "
                                 f"{str(e).splitlines()[0][:200] if str(e) else 'no detail'})") from None
        self.obs_size = policy_obs_size(self.meta, str(self.path))
        width = {i.name: i.shape for i in self.session.get_inputs()}.get("obs", [None, None])[-1]
        if isinstance(width, int) and width != self.obs_size:
            raise PolicyMismatchError(f"{self.path}: the graph takes {width} observation values, its "
                                      f"metadata says layout {self.meta.get('obs_version')} "
                                      f"({self.obs_size} values)")
        try:
            self.mlp = DenseMLP.read(self.path)
        except Exception:  # (a graph onnxruntime runs but the onnx package does not read: onnxruntime plays)
            self.mlp = None
        if self.mlp is not None and self.mlp.dims[0] != self.obs_size:
            self.mlp = None

    def actions(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs = np.ascontiguousarray(obs[..., : self.obs_size], dtype=np.float32)
        return self.session.run(["action"], {"obs": obs, "mask": masks})[0]

    def action(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """One decision: ``obs`` one observation (at least ``obs_size`` values), ``mask`` its legal
        mask (``NUM_ACTIONS`` bools). The compiled MLP's answer, onnxruntime's on a near tie."""
        if self.mlp is not None:
            a = self.mlp.action(obs, mask)
            if a >= 0:
                return a
        return int(self.actions(obs.reshape(1, -1), mask.reshape(1, -1))[0])


class SB3Policy:
    """A MaskablePPO checkpoint (loads torch and sb3-contrib): the same deterministic masked action.
    Reads the first ``obs_size`` values of each observation (the model's observation space)."""

    def __init__(self, path: str | Path):
        MaskablePPO = require("sb3_contrib", "train", f"the SB3 checkpoint {path}",
                              error=MissingAgentExtraError).MaskablePPO
        self.path = Path(path)
        meta_path = self.path.parent / "train.json"
        if not meta_path.is_file():
            raise AgentSpecError(f"{self.path}: train.json is missing beside it (train/ppo.py writes it; "
                                 "the rules and layout are checked from it)")
        self.meta = _read_meta(meta_path, self.path)
        try:
            self.model = MaskablePPO.load(self.path, device="cpu")
        except Exception as e:  # a damaged zip: zipfile, pickle or torch errors
            raise AgentSpecError(f"{self.path}: not a readable SB3 checkpoint ({type(e).__name__}: "
                                 f"{str(e).splitlines()[0][:200] if str(e) else 'no detail'})") from None
        self.obs_size = policy_obs_size(self.meta, str(meta_path))
        width = self.model.observation_space.shape[-1]
        if width != self.obs_size:
            raise PolicyMismatchError(f"{self.path}: the network takes {width} observation values, "
                                      f"{meta_path.name} says layout {self.meta.get('obs_version')} "
                                      f"({self.obs_size} values)")

    def actions(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        a, _ = self.model.predict(obs[..., : self.obs_size], action_masks=masks, deterministic=True)
        return np.asarray(a)


def load_policy(path: str | Path) -> OnnxPolicy | SB3Policy:
    p = resolve_policy_path(path)
    return OnnxPolicy(p) if p.suffix == ".onnx" else SB3Policy(p)


class LearnedAgent:
    """The ``ppo:PATH`` agent: a trained policy's deterministic masked action for the seat to move."""

    def __init__(self, path: str | Path, ruleset: Ruleset):
        self.source = str(path)
        self.policy = load_policy(path)
        check_compatible(self.policy.meta, ruleset, f"ppo:{path} ({self.policy.path})")
        self.ruleset = ruleset
        self.name = f"ppo:{path}"

    def act(self, state: GameState, legal: Sequence[int], rng: np.random.Generator) -> int:
        obs = observe(state, state.current)  # the policy reads its layout's prefix
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        mask[legal] = True
        policy = self.policy
        if isinstance(policy, OnnxPolicy):
            return policy.action(obs, mask)
        return int(policy.actions(obs.reshape(1, -1), mask.reshape(1, -1))[0])

    def act_batch(self, games: Any, rows: np.ndarray) -> np.ndarray:
        """The policy's moves for the player to move in games ``rows`` of a
        :class:`zilch_env.engine.batched.BatchedGames`, in one call (how the vector envs play a
        ``ppo:PATH`` opponent): the same observation and mask :meth:`act` reads, a batch at once."""
        obs = games.observe(games.current[rows], rows=rows)
        return np.asarray(self.policy.actions(obs, games.legal_masks(rows=rows)), dtype=np.int64).reshape(-1)

    # An onnxruntime session does not pickle: evaluation workers get the path and reload it.
    def __getstate__(self) -> dict[str, Any]:
        return {"source": self.source, "ruleset": self.ruleset}

    def __setstate__(self, st: dict[str, Any]) -> None:
        self.__init__(st["source"], st["ruleset"])


def _make_ppo(ruleset: Ruleset, arg: str | None) -> LearnedAgent:
    if not arg:
        raise AgentSpecError("ppo needs a shipped policy's name or a path: ppo:zonk (the shipped zonk "
                             "policy), ppo:checkpoints/zonk (a checkpoint directory), ppo:PATH.onnx or "
                             "ppo:PATH.zip")
    return LearnedAgent(arg, ruleset)


register_agent("ppo", _make_ppo, "a trained policy: ppo:NAME (a shipped policy: zonk, any, zonk-score, ...), "
                                 "ppo:DIR (its policy.onnx, else best/model.zip), ppo:FILE.onnx (the agents "
                                 "extra: onnxruntime) or ppo:FILE.zip (SB3: the train extra)")
