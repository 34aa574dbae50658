"""``python -m paper_figs [--quick] [--out DIR] [--seed S] [PATTERN]`` — same as ``theorycheck figs``."""
import argparse
import sys
import time

from . import build, figures


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m paper_figs", description="Build the paper figures.")
    p.add_argument("pattern", nargs="?", help="figure name or glob")
    p.add_argument("--out", default="figures", help="output folder (default figures)")
    p.add_argument("--quick", action="store_true", help="small, fast versions")
    p.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    args = p.parse_args(argv)
    if args.seed < 0:
        p.error(f"--seed must be a non-negative integer, got {args.seed}")
    if args.pattern and not figures(args.pattern):
        p.error(f"no figure matches {args.pattern!r}")
    t0 = time.perf_counter()
    paths = build(args.out, quick=args.quick, seed=args.seed, pattern=args.pattern,
                  progress=lambda name: print(f"building {name} ...", file=sys.stderr, flush=True))
    print(f"wrote {len(paths)} files to {args.out}/ in {time.perf_counter() - t0:.1f} s (seed {args.seed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
