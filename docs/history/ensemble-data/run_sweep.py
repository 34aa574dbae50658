"""Driver for the main finding of docs/notes/ensemble.md: the full finite-arm regret sweep
(d = 10, 50; K = 1000; T = 2000; 50 repetitions; seed 0; chunks of 5) measured once on 2 worker
processes — the stored experiments FINITE_SWEEPS that the regret claims reduce — then the paper
figures (full size), which read the same chunks from the in-process memo."""
import json, time, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root
from paper_figs import figures, save_figure
from proofs_check.engine import measure
from seqproj.ensemble import FINITE_SWEEPS, SWEEP_FAMILIES, RegretSweep, smallest_m_within


def main():
    out = Path(__file__).resolve().parent
    timing, sweeps = {}, {}
    t_all = time.perf_counter()
    for d, exp in FINITE_SWEEPS.items():
        t0 = time.perf_counter()
        sweeps[d] = RegretSweep.from_measurement(measure(exp, 50, seed=0, executor="processes", workers=2))
        timing[f"d{d}"] = time.perf_counter() - t0
        print(f"d={d}: {timing[f'd{d}']:.1f} s", flush=True)
    timing["total"] = time.perf_counter() - t_all
    summary = {"timing_s": timing, "seed": 0, "chunk_size": 5, "executor": "processes", "workers": 2,
               "experiments": {f"d{d}": exp.id for d, exp in FINITE_SWEEPS.items()}}
    for d, res in sweeps.items():
        ts = res.final_mean_ci("TS")
        rows = {"TS": ts, "LinUCB": res.final_mean_ci("LinUCB"), "Greedy": res.final_mean_ci("Greedy")}
        fams = {}
        for idx, pert in SWEEP_FAMILIES:
            sm = smallest_m_within(res, idx, pert, margin=0.10, level=0.90, n_boot=2000, seed=0)
            fams[sm.family] = sm.to_dict()
            print(d, sm.family, "M* =", sm.m, "90% CI", sm.ci, "ratios", [round(r, 3) for r in sm.ratio])
        summary[f"d{d}"] = {"baselines": rows, "smallest_M": fams, "labels": list(res.labels),
                            "final_mean": res.final.mean(axis=1).tolist(),
                            "final_ci": [list(res.final_mean_ci(l)[1]) for l in res.labels]}
        print(d, rows, flush=True)
    (out / "sweep_summary.json").write_text(json.dumps(summary, indent=1, default=float))
    for name, fn in figures("ensemble").items():
        t0 = time.perf_counter()
        fig, data = fn(quick=False, seed=0)
        save_figure(fig, name, {"figure": name, "seed": 0, "quick": False, **data}, out / "figs")
        print(name, f"{time.perf_counter() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
