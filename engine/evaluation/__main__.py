"""``python -m engine.evaluation FILE...``: check ranking vector files (:mod:`engine.evaluation.vectors`).

Prints one line per failing entry and a summary line. Exit status: 0 when every entry holds, 1 when any
fails, 2 when a file is malformed (the file, the entry and the reason go to standard error).
"""

from __future__ import annotations

import argparse
import sys

from engine.evaluation.vectors import MalformedVectors, check_entry, load_vectors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.evaluation", description="Check hand-ranking vector files (ranking.toml)."
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="ranking vector files (TOML)")
    args = parser.parse_args(argv)
    passed = failed = 0
    malformed = False
    for file in args.files:
        try:
            entries = load_vectors(file)
        except MalformedVectors as error:
            print(f"{error.file}: {error.where}: malformed: {error.reason}", file=sys.stderr)
            malformed = True
            continue
        for entry in entries:
            failure = check_entry(entry)
            if failure is None:
                passed += 1
            else:
                failed += 1
                print(f"FAIL {failure}")
    files = len(args.files)
    print(f"{files} file{'s' if files != 1 else ''} checked: {passed} passed, {failed} failed")
    if malformed:
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
