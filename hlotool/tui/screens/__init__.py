"""The debugger's screens."""
