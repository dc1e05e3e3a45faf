"""`hlotool debug`: a terminal pass debugger (Textual).

The model (`session.py`, `render.py`) has no UI and is tested on its own; the app,
screens and widgets only show it and run the slow parts in workers.
"""
