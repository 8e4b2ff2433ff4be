"""Shared by the build-time reference generators (scripts/*_vectors.py): how a vector file is
written. A file appears whole or not at all (written beside, then renamed), so an interrupted
build never leaves a truncated reference for a test to read."""
import os


def write_atomic(path, header, lines):
    """Writes the header lines, then the data lines, one per line, ASCII."""
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="ascii") as fh:
        fh.write("\n".join(header + lines) + "\n")
    os.replace(tmp, path)
