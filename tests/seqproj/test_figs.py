"""seqproj figures: deterministic given the seed, data saved beside them."""
import hashlib
import json

import paper_figs


def _digest(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_fixed_vs_uniform_is_byte_stable(tmp_path):
    a = paper_figs.build(tmp_path / "a", quick=True, seed=3, pattern="seqproj_fixed_vs_uniform")
    paper_figs.build(tmp_path / "b", quick=True, seed=3, pattern="seqproj_fixed_vs_uniform")
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")
    data = json.loads(a[2].read_text())
    curves = data["curves"]
    # under the stopping adversary, out-of-band at T == time-uniform failure, >> fixed design
    s = curves["sphere: stopping, out of band at t = T"]
    u = curves["sphere: stopping, time-uniform (some t ≤ T)"]
    f = curves["sphere: fixed design, out of band at t = T"]
    assert [x["events"] for x in s] == [x["events"] for x in u]
    assert s[1]["ci"][0] > f[1]["ci"][1]
