"""The subcommands of `hlotool`, one module each (`add_arguments`, `run`, `HELP`).

Command modules import heavy dependencies inside `run`, so building the argument parser
stays cheap and `hlotool --help` starts fast.
"""

#: Command name -> module under hlotool.commands, in the order `--help` lists them.
COMMANDS: dict[str, str] = {
    "parse": "parse",
    "ls": "ls",
    "print": "print_",
    "run": "run",
    "opt": "opt",
    "passes": "passes",
    "cost": "cost",
    "memory": "memory",
    "test": "test",
    "debug": "debug",
    "bisect": "bisect",
    "compile": "compile",
    "graph": "graph",
    "view": "view",
    "info": "info",
}
