"""responder: offline decision support for identifying an unknown toxic chemical from symptoms."""

__version__ = "0.1.0"
