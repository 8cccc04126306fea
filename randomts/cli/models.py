"""``randomts generate``: draw a rule base."""

from __future__ import annotations

from randomts.cli.common import check_output, formats_help, positive_int, save_model

__all__ = ["add_generate", "handle_generate"]


def add_generate(commands):
    """Register ``randomts generate`` and its handler with the subparsers ``commands``."""
    cmd = commands.add_parser(
        "generate",
        help="draw a random rule base (antecedents as in the paper) and print or save it",
        description="Draw random Gaussian antecedents (centres ~ N(0, 2), widths b ~ U(0, 1)); "
        "consequents are zero unless --random-consequents.",
    )
    cmd.add_argument("--inputs", type=positive_int, required=True, help="number of inputs N")
    cmd.add_argument(
        "--outputs", type=positive_int, default=1, help="number of outputs M (default 1)"
    )
    cmd.add_argument(
        "--rules", type=positive_int, default=10, help="number of rules H (default 10)"
    )
    cmd.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    cmd.add_argument(
        "--normalize", action="store_true", help="weighted average instead of weighted sum"
    )
    cmd.add_argument(
        "--random-consequents",
        action="store_true",
        help="draw consequent coefficients and constants from N(0, 1) too",
    )
    cmd.add_argument("-o", "--output", metavar="FILE", help="save to FILE instead of printing")
    cmd.add_argument(
        "--format", help=f"file format of FILE {formats_help()} (default: from the extension)"
    )
    cmd.add_argument(
        "--precision",
        type=positive_int,
        help="print the rules in words with this many significant digits (default: the "
        "lossless TXT format, every digit)",
    )
    cmd.set_defaults(handler=handle_generate)


def handle_generate(args):
    """Run ``randomts generate`` on the parsed ``args``; the text to print."""
    from randomts.core.sampling import check_random_state
    from randomts.fuzzy.rulebase import RuleBase

    if args.output:
        check_output(args.output, args.format)
    rng = check_random_state(args.seed)
    rule_base = RuleBase.random(
        args.inputs, args.outputs, args.rules, normalize=args.normalize, random_state=rng
    )
    if args.random_consequents:
        rule_base = rule_base.replace(
            coef=rng.standard_normal((args.rules, args.outputs, args.inputs)),
            intercept=rng.standard_normal((args.rules, args.outputs)),
        )
    rule_base = rule_base.replace(
        metadata={
            "generated_by": "randomts generate",
            "seed": args.seed,
            "random_consequents": args.random_consequents,
        }
    )
    if args.output:
        return save_model(rule_base, args.output, args.format)
    if args.precision is None:  # every digit: the TXT format, as it would be saved
        from randomts.io.text_format import format_rules

        return format_rules(rule_base)
    return rule_base.to_text(precision=args.precision)
