"""The revisions, one module each (``revision``/``down_revision`` chain them)."""
