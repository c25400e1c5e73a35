"""The installed distribution's version (one source of truth: pyproject.toml)."""

from importlib import metadata

DISTRIBUTION = "mwz-eval"

try:
    __version__ = metadata.version(DISTRIBUTION)
except metadata.PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"
