"""The debugger's widgets."""
