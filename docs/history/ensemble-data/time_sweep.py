"""Re-time the full sweep with the final code (2 worker processes) and check the numbers equal
the saved run (sweep_summary.json)."""
import json, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root
import numpy as np
from seqproj.ensemble import FiniteArmEnv, run_bandit, sweep_agents


def main():
    saved = json.loads((Path(__file__).resolve().parent / "sweep_summary.json").read_text())
    t_all = time.perf_counter()
    for d in (10, 50):
        t0 = time.perf_counter()
        res = run_bandit(FiniteArmEnv(d, 1000), sweep_agents(d), 2000, 50, 0, executor="processes",
                         workers=2, chunk_size=5)
        same = np.array_equal(res.final.mean(axis=1), np.array(saved[f"d{d}"]["final_mean"]))
        print(f"d={d}: {time.perf_counter() - t0:.1f} s, identical to saved run: {same}", flush=True)
    print(f"total {time.perf_counter() - t_all:.1f} s", flush=True)


if __name__ == "__main__":
    main()
