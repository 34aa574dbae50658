import pytest

from proofs_check import verify
from proofs_check.engine import claims

EXPECTED = {
    "baselines.proxy.identity", "baselines.proxy.collision", "baselines.proxy.tabular_exact",
    "baselines.proxy.shared_correlation", "baselines.variance.per_token_le_otb",
    "baselines.variance.per_token_le_global_bstar", "baselines.variance.otb_le_global_bstar",
    "baselines.variance.otb_le_mean", "baselines.variance.global_bstar_le_mean",
    "baselines.bias.group_mean", "baselines.bias.rloo", "baselines.bias.otb_measured",
    "baselines.mse.group_otb_lt_mean", "baselines.mse.group_otb_lt_rloo", "baselines.otb.reference",
    "baselines.otb.equal_weights_group_mean", "baselines.logit.zero_sum", "baselines.logit.update_norm",
    "baselines.logit.first_order_error", "baselines.logit.second_order_error",
    "baselines.logit.first_order_breaking_step", "baselines.logit.second_order_breaking_step",
    "baselines.dapo.chain_rule", "baselines.dapo.gradient_form",
    "baselines.dapo.accumulation_onpolicy", "baselines.dapo.per_decision_is",
    "baselines.dapo.transcribed_recursion", "baselines.toy.headline",
    "baselines.variance.shared.otb_le_global_bstar", "baselines.variance.shared.otb_le_mean",
    "baselines.variance.shared.per_token_le_otb", "baselines.toy.headline_eos",
}


def test_all_claims_registered():
    ids = {c.id for c in claims("baselines")}
    assert EXPECTED <= ids
    for c in claims("baselines"):
        assert c.label in ("CONFIRMED", "DERIVED", "RECONSTRUCTED", "OPEN")
        assert c.statement and c.source


@pytest.mark.parametrize("cid, verdict", [
    ("baselines.proxy.identity", "holds"),
    ("baselines.otb.reference", "holds"),
    ("baselines.bias.group_mean", "holds"),
    ("baselines.dapo.gradient_form", "holds"),
    ("baselines.dapo.transcribed_recursion", "refuted"),
    ("baselines.logit.first_order_error", "holds"),
    ("baselines.variance.per_token_le_otb", "holds"),
    ("baselines.variance.shared.otb_le_global_bstar", "refuted"),
])
def test_quick_verdicts(cid, verdict):
    r = verify(cid, budget=None if verdict == "refuted" else 20, seed=1)
    assert r.verdict == verdict


def test_roles_and_expected_verdicts():
    """Controls carry ``expected``; no statement or note spells an expected verdict in prose."""
    from proofs_check.engine.registry import claims_registered_by

    cs = claims("baselines")
    # every baselines.* claim comes from the topic's claims package (no pinned count: a new
    # claim is checked below and by the conformance kit), and the retired symbolic one stays out
    assert {c.id for c in cs} == {c.id for c in claims_registered_by("proofs_check.baselines.claims")}
    assert EXPECTED <= {c.id for c in cs} and "baselines.symbolic.telescoping" not in {c.id for c in cs}
    for c in cs:
        assert c.role in ("statement", "control", "measurement")
        if c.role == "control":
            assert c.expected is not None
        text = (c.statement + " " + c.notes).lower()
        assert "negative control" not in text and "expected verdict" not in text and "[counterexample]" not in text
    by_id = {c.id: c for c in cs}
    assert by_id["baselines.dapo.transcribed_recursion"].expected == "refuted"
    assert by_id["baselines.dapo.transcribed_recursion"].role == "control"
    assert {c.id for c in cs if c.expected == "refuted"} == {
        "baselines.dapo.transcribed_recursion", "baselines.toy.headline",
        "baselines.variance.shared.otb_le_global_bstar", "baselines.variance.shared.otb_le_mean"}


def test_sources_are_structured_and_resolve():
    """Every claim cites registered papers or none (our derivations), and a section of the theory page."""
    import re
    from pathlib import Path

    from proofs_check.engine import Source
    from proofs_check.papers import PAPERS
    page = Path(__file__).resolve().parents[2] / "docs" / "theory" / "baselines.md"
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', page.read_text(encoding="utf-8")))
    for c in claims("baselines"):
        s = c.source
        assert isinstance(s, Source), c.id
        assert all(k in PAPERS for k in s.papers), c.id
        p, anchor = s.theory.split("#")
        assert p == "baselines.md" and anchor in anchors, c.id
        assert "spec" not in (s.note + s.where), c.id
        if c.label == "DERIVED":
            assert s.papers == (), f"{c.id}: our derivation cites no paper"
        assert not re.search(r"<=|>=|\beps\b|sqrt", c.statement), c.id
