"""Regenerate the committed example files: ``python tests/data/make_data.py``.

``model.{txt,json,fis,fll}`` hold one rule base (2 inputs, 2 outputs, 4 rules,
random antecedents and consequents, seed 7); the tests load each file, export
it again and compare byte for byte. ``octave_writefis.fis`` is ``model.fis``
read and written back by GNU Octave's fuzzy-logic-toolkit (``readfis`` then
``writefis``, 15 significant digits); ``fuzzylite_export.fll`` is
``model.fll`` read and written back by pyfuzzylite (``FllImporter`` then
``FllExporter``, its default 3 decimals). Both show the readers accept files
written by other tools.
"""

import os
import subprocess

import numpy as np

import randomts

HERE = os.path.dirname(os.path.abspath(__file__))


def example_rule_base():
    rng = np.random.default_rng(7)
    rule_base = randomts.RuleBase.random(
        2, 2, 4, random_state=rng, input_names=["x1(k)", "speed m/s"], output_names=["y1", "y2"]
    )
    return rule_base.replace(
        coef=rng.standard_normal((4, 2, 2)),
        intercept=rng.standard_normal((4, 2)),
        metadata={"made_by": "tests/data/make_data.py", "seed": 7},
    )


if __name__ == "__main__":
    rule_base = example_rule_base()
    for extension in ("txt", "json", "fis", "fll"):
        randomts.save(rule_base, os.path.join(HERE, f"model.{extension}"))
    subprocess.run(
        [
            "octave",
            "--no-gui",
            "-q",
            "--eval",
            "pkg load fuzzy-logic-toolkit; writefis(readfis('model.fis'), 'octave_writefis.fis');",
        ],
        cwd=HERE,
        check=True,
    )
    import fuzzylite as fl

    engine = fl.FllImporter().from_file(os.path.join(HERE, "model.fll"))
    with open(os.path.join(HERE, "fuzzylite_export.fll"), "w") as stream:
        stream.write(fl.FllExporter().to_string(engine) + "\n")
