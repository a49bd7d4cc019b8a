"""A game table file names the entries of its solve's vector, so that a table solved before a rule
parameter existed stays readable while that rule is off for its rules, and a changed entry is named."""

from __future__ import annotations

import numpy as np
import pytest

from zilch_env import load_ruleset

from agents.solver import game_kernels as K
from agents.solver.game import GameTable, solve_game
from agents.solver.game_table import save_npz_whole


def _arrays(path):
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def test_a_table_reads_by_the_names_of_its_parameters(tmp_path):
    rs = load_ruleset("zonk", {"target": 300, "dice": 2, "entry_threshold": 0})
    table = solve_game(rs, cache=False, progress=False)
    path = table.save(tmp_path / "t.npz")
    assert list(_arrays(path)["ip_names"]) == list(K.ip_names())
    assert np.array_equal(GameTable.load(path).ip, table.ip)

    # a file from before a parameter existed (here R_HOT_DICE_BONUS): the rule is off, the file reads
    names = list(K.ip_names())
    i = names.index("R_HOT_DICE_BONUS")
    a = _arrays(path)
    a["ip"], a["ip_names"] = np.delete(a["ip"], i), np.array(names[:i] + names[i + 1:])
    old = save_npz_whole(tmp_path / "old.npz", **a)
    assert np.array_equal(GameTable.load(old).ip, table.ip)

    # an entry that is not the solver's for the table's rules: stale, and the message names it
    a = _arrays(path)
    a["ip"] = a["ip"].copy()
    a["ip"][names.index("R_MIN_BANK")] += 50
    bad = save_npz_whole(tmp_path / "bad.npz", **a)
    with pytest.raises(ValueError, match="R_MIN_BANK is 50, this solver's for its rules 0: the table is stale"):
        GameTable.load(bad)

    # a file that does not name its entries is read in this layout only
    a = _arrays(path)
    del a["ip_names"]
    assert np.array_equal(GameTable.load(save_npz_whole(tmp_path / "plain.npz", **a)).ip, table.ip)
    a["ip"] = a["ip"][:-1]
    with pytest.raises(ValueError, match="a layout this solver does not read"):
        GameTable.load(save_npz_whole(tmp_path / "short.npz", **a))
