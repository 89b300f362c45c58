"""`python -m ltlwit`: the same command as the `ltlwit` console script."""

from ltlwit.cli import main

if __name__ == "__main__":
    main()
