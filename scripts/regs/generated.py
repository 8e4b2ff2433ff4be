"""What the Weft generators (gen_regs.py, gen_desc.py) share: writing their outputs, checking that
the committed files are what the source gives, and the command line around both."""

from __future__ import annotations

import argparse
import difflib
import sys
import tempfile
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[2]


def write(files: dict[str, str], out_dir: Path) -> list[Path]:
    """Writes {repository-relative path: text} under out_dir; returns the paths written."""
    written = []
    for rel, text in files.items():
        path = out_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        written.append(path)
    return written


def check(tool: str, source: str, generator: str, outputs: tuple[str, ...],
          generate: Callable[[Path], list[Path]]) -> int:
    """Regenerates into a temporary directory and compares with the repository; 1 if stale."""
    with tempfile.TemporaryDirectory(prefix=f"weft-{tool}-") as tmp:
        generate(Path(tmp))
        stale = []
        for rel in outputs:
            new = (Path(tmp) / rel).read_text()
            cur_path = REPO / rel
            cur = cur_path.read_text() if cur_path.exists() else ""
            if new != cur:
                stale.append(rel)
                diff = list(difflib.unified_diff(cur.splitlines(), new.splitlines(),
                                                 f"{rel} (committed)", f"{rel} (from {source})",
                                                 lineterm="", n=1))
                print("\n".join(diff[:40]))
                if len(diff) > 40:
                    print(f"... ({len(diff) - 40} more diff lines)")
    if stale:
        print(f"{tool}: out of date with {source}: {', '.join(stale)}")
        print(f"{tool}: run `python3 {generator}` and commit the result")
        return 1
    print(f"{tool}: {', '.join(outputs)} match {source}")
    return 0


def main(doc: str, tool: str, generate: Callable[[Path], list[Path]], check_all: Callable[[], int],
         errors: tuple[type[Exception], ...]) -> int:
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--out-dir", type=Path, default=REPO,
                    help="root under which the outputs are written (default: the repository)")
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temporary directory and compare with the repository")
    args = ap.parse_args()
    try:
        if args.check:
            return check_all()
        for p in generate(args.out_dir.resolve()):
            print(f"{tool}: wrote {p}")
        return 0
    except errors as e:
        print(f"{tool}: error: {e}", file=sys.stderr)
        if e.__cause__ is not None:
            print(f"{tool}: {e.__cause__}", file=sys.stderr)
        return 1
