"""`python -m ltlwit.train ...`: the training loop (`ltlwit.train.loop`), e.g. on G GPUs as
`torchrun --nproc_per_node=G -m ltlwit.train --task ltl --arch si --data DIR --out DIR ...`.
`ltlwit train ...` (under torchrun: `-m ltlwit train ...`) runs the same loop and registers the
model for `solve` and `eval` (docs/training.md, "Several GPUs and machines")."""

import sys

from ltlwit.train.loop import main

if __name__ == "__main__":
    sys.exit(main())
