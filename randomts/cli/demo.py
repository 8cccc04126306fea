"""``randomts demo``: the paper's experiment, printed as a table beside the paper's."""

from __future__ import annotations

import sys

__all__ = ["add_demo", "handle_demo"]


def add_demo(commands):
    """Register ``randomts demo`` and its handler with the subparsers ``commands``."""
    demo = commands.add_parser(
        "demo",
        help="reproduce the paper's Table 1: SLM against ELM on the Van der Pol oscillator",
        description="The paper's experiment (section 6, Table 1): learning, generalisation and "
        "simulation phases of 10 Van der Pol trajectories x 1000 steps, for the SLM (100 rules) "
        "and the ELM (300 RBF nodes), with the paper's pinv and the exact lstsq solver, repeated; "
        "prints its headline (each model's free-run simulation error beside the paper's) and "
        "the table beside the paper's; --verbose adds the details. Progress goes to stderr.",
    )
    demo.add_argument(
        "--repeats",
        type=int,
        default=10,
        help="number of repeats, averaged (default 10; the paper: 100)",
    )
    demo.add_argument(
        "--rules",
        type=int,
        default=100,
        help="rules of the SLM; the ELM gets 3x as many nodes (default 100)",
    )
    demo.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    demo.add_argument(
        "--initial-box",
        type=float,
        default=2.0,
        metavar="A",
        help="initial states in [-A, A]^2 (default 2)",
    )
    demo.add_argument(
        "--train-design",
        choices=("latin-hypercube+rest", "latin-hypercube", "uniform"),
        default="latin-hypercube+rest",
        help="training starts: one near rest and the others a Latin hypercube over "
        "the box (default), all on a Latin hypercube, or uniform at random; the "
        "other phases' starts are always uniform at random",
    )
    demo.add_argument(
        "--target",
        choices=("increment", "output"),
        default="increment",
        help="fit the models to x(k) - x(k-1) (default) or to x(k), as the paper",
    )
    demo.add_argument("--json", metavar="PATH", help="also write the figures as JSON to PATH")
    demo.add_argument(
        "--figures",
        metavar="DIR",
        help="also write figure1.png and simulation.png to DIR (needs matplotlib)",
    )
    demo.add_argument("--quiet", action="store_true", help="no progress on stderr")
    demo.add_argument(
        "--verbose",
        action="store_true",
        help="after the table, also the settings, the choices the paper leaves open, the "
        "comparison row by row, the local linear model at the origin and the first rules",
    )
    demo.set_defaults(handler=handle_demo)


def handle_demo(args):
    """Run ``randomts demo`` on the parsed ``args``; the text to print."""
    from randomts.paper.demo import progress_printer, run_demo

    return run_demo(
        repeats=args.repeats,
        seed=args.seed,
        n_rules=args.rules,
        initial_box=args.initial_box,
        train_design=args.train_design,
        target=args.target,
        json_path=args.json,
        figures_dir=args.figures,
        progress=None if args.quiet else progress_printer(sys.stderr),
        verbose=args.verbose,
    )
