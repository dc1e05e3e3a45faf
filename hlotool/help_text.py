"""The man-page part of `hlotool COMMAND --help`: examples, exit status and where to
read more, shown after the options (argparse epilogs), and help for the options every
command shares."""

from __future__ import annotations

#: Help of options several commands define without their own text.
SHARED_OPTIONS: dict[str, str] = {
    "--format": "output format: text for people, json for scripts (errors too)",
    "--target": "where the module runs or compiles",
    "--rtol": "relative tolerance: |got-want| <= atol + rtol*|want| passes (default 1e-5; "
              "2 ulps, 2*eps, for bf16/f16/f8 outputs)",
    "--atol": "absolute tolerance (default 1e-6; 2*eps for bf16/f16/f8 outputs)",
}

_EXIT = {
    "ok": "exit status: 0 ok, 2 bad usage or bad input (FILE:LINE:COL: error: ...)",
    "mismatch": "exit status: 0 ok, 1 outputs differ from --expect or --reference, 2 bad "
                "usage or bad input",
    "test": "exit status: 0 every check passed, 1 a check failed, 2 bad input",
    "bisect": "exit status: 0 no bad pass, 1 a bad pass was found, 2 bad input",
    "debug": "exit status: 0 (q quits)",
}

#: Per command: examples (command, what it does) and the exit-status line.
EXAMPLES: dict[str, tuple[list[tuple[str, str]], str]] = {
    "parse": ([("hlotool parse module.hlo", "one-line summary: computations, instructions, entry"),
               ("hlotool parse module.mlir --format json", "JSON with the opcode histogram"),
               ("cat module.hlo | hlotool parse -", "read standard input")], "ok"),
    "print": ([("hlotool print module.hlo", "canonical HLO text (a fixed point)"),
               ("hlotool print module.hlo --format stablehlo -o m.mlir", "as StableHLO"),
               ("hlotool print module.mlir --format hlo", "StableHLO in, HLO out"),
               ("hlotool print m.mlir --format artifact --target-version 1.0.0 -o m.mlirbc",
                "a StableHLO portable artifact (docs/artifacts.md)")], "ok"),
    "info": ([("hlotool info model.jaxexport", "a jax.export blob: platforms, signature, "
                                                "shape symbols, effects, ops"),
              ("hlotool info m.mlirbc --format json", "a portable artifact, for scripts")],
             "ok"),
    "run": ([("hlotool run m.hlo --inputs m.inputs.npz --expect m.expected.npz",
              "run on the CPU and compare with saved outputs"),
             ("hlotool run m.hlo --expect m.expected.npz",
              "the same: m.inputs.npz beside m.expected.npz is used (and said)"),
             ("hlotool run m.mlir --reference xla", "compare with XLA:CPU (needs the jax extra)"),
             ("hlotool run m.hlo --target interp --output out.npz", "reference interpreter"),
             ("hlotool run m.hlo --bench 20 --format json", "time 20 runs after a warm-up"),
             ("hlotool run m.hlo --target tpu --report r.json", "the simulated TPU, with cycles"),
             ("hlotool run sharded.opt.hlo --inputs global.npz", "every device of a sharded "
                                                                 "module (docs/devices.md)"),
             ("hlotool run jit.hlo --pipeline spmd", "partition by the parameters' shardings"),
             ("mpiexec -n 4 hlotool run m.opt.hlo --distributed mpi", "one device per rank")],
            "mismatch"),
    "opt": ([("hlotool opt m.hlo --pipeline cpu -o m.opt.hlo", "the CPU pipeline"),
             ("hlotool opt m.hlo --passes 'cse,dce,algebraic-simplify{max-iterations=3}'",
              "a list of passes with options"),
             ("hlotool opt m.hlo --pipeline cpu --dump-dir steps/ --time-passes",
              "NNN-pass.hlo after every change, and pass times")], "ok"),
    "passes": ([("hlotool passes", "every pass and pipeline"),
                ("hlotool passes cpu", "one pipeline's steps with their reasons"),
                ("hlotool passes --format json", "for scripts")], "ok"),
    "cost": ([("hlotool cost m.opt.hlo", "flops, transcendentals and bytes per instruction"),
              ("hlotool cost m.hlo --format json", "for scripts")], "ok"),
    "memory": ([("hlotool memory m.hlo", "peak memory and the live buffers at the peak"),
                ("hlotool memory m.hlo -o chart.svg", "draw the buffer lifetimes")], "ok"),
    "test": ([("hlotool test checks.mlir", "run the check.* ops of every // ----- chunk")],
             "test"),
    "debug": ([("hlotool debug m.hlo --pipeline cpu", "step through the CPU pipeline"),
               ("hlotool debug m.hlo --passes cse,dce --check-each",
                "check numerics after every step"),
               ("keys", "n next pass, p/arrows move the view, u/ctrl+r undo/redo, f filter, "
                        "/ search, G graph diff, b bisect, ? every key (docs/debugger.md)")],
              "debug"),
    "bisect": ([("hlotool bisect m.hlo --pipeline cpu", "first pass that breaks the module"),
                ("hlotool bisect m.hlo --pipeline cpu -o repro.hlo --rtol 1e-4",
                 "write the reproducer there")], "bisect"),
    "compile": ([("hlotool compile m.hlo --emit llvm", "LLVM IR, one function per kernel, named "
                                                      "after its fusion"),
                 ("hlotool compile m.hlo --emit asm -o m.s", "assembly for the host CPU"),
                 ("hlotool compile m.hlo --target gpu --emit ptx", "the GPU kernels' PTX, with "
                                                                   "ptxas resources"),
                 ("hlotool compile m.hlo --target tpu", "the simulated TPU's program")],
                "ok"),
    "graph": ([("hlotool graph m.opt.hlo -o g.svg", "the entry, fusions as clusters"),
               ("hlotool graph m.hlo --neighborhood dot.3 --radius 2 -o n.svg",
                "around one instruction"),
               ("hlotool graph --diff m.hlo m.opt.hlo -o d.svg", "what XLA's passes changed"),
               ("hlotool graph m.hlo -o g.html", "interactive page (same as hlotool view)")],
              "ok"),
    "ls": ([("hlotool ls dump/", "the modules of an --xla_dump_to folder, before and after"),
            ("hlotool run dump/ --module jit_f --stage after", "run one of them"),
            ("hlotool ls dump/ --format json", "for scripts")], "ok"),
    "view": ([("hlotool view m.opt.hlo", "write m.opt.html and say where it is"),
              ("hlotool view m.opt.hlo --diff-from m.hlo", "colour each op by what XLA did"),
              ("hlotool view m.hlo --after-pipeline cpu -o v.html",
               "the cpu pipeline's result, coloured by what it did")], "ok"),
}


def epilog(command: str) -> str:
    """The examples, exit status and docs pointer of one command."""
    examples, exit_kind = EXAMPLES.get(command, ([], "ok"))
    lines = ["examples:"]
    for cmd, what in examples:
        lines.append(f"  {cmd}")
        lines.append(f"      {what}")
    lines += ["", _EXIT[exit_kind], "",
              "See docs/cli.md for inputs and outputs (npz names, dtypes) and the README."]
    return "\n".join(lines)
