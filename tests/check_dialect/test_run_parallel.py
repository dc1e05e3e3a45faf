"""StableHLO's own interpreter tests of collectives run under `hlotool test`: every program
of `interpreter.run_parallel` on its own device, checks against StableHLO's expectations.
Chunks using `has_dynamic_root` (a collective_broadcast whose root is an operand, newer
than XLA's HLO) are left out: hlotool does not support that form yet."""

from __future__ import annotations

from pathlib import Path

import pytest

from hlotool.check_dialect import run_text
from hlotool.check_dialect.runner import split_chunks

SUITE = Path(__file__).parents[1] / "data" / "stablehlo_interpret_collectives"
FILES = sorted(p.name for p in SUITE.glob("*.mlir"))


@pytest.mark.parametrize("name", FILES)
def test_collective_interpreter_tests_pass(name: str) -> None:
    text = (SUITE / name).read_text()
    chunks = [c for c in split_chunks(text) if "has_dynamic_root" not in c and c.strip()]
    checks = 0
    for chunk in chunks:
        report = run_text(chunk)
        assert not report.errors, [e.message for e in report.errors]
        assert report.count("pass") == len(report.results) > 0, [
            (r.spec.line, r.outcome) for r in report.results if r.status != "pass"]
        checks += len(report.results)
    assert checks >= len(chunks)


FEEDS = """
module @feeds {
  func.func @first() -> tensor<2xi64> {
    %c = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    return %c : tensor<2xi64>
  }
  func.func @second() -> tensor<2xi64> {
    %c = stablehlo.constant dense<[30, 40]> : tensor<2xi64>
    return %c : tensor<2xi64>
  }
  func.func @reader(%token : !stablehlo.token) -> (tensor<2xi64>, tensor<2xi64>, !stablehlo.token) {
    %a, %t0 = "stablehlo.infeed"(%token) {infeed_config = ""} : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
    %b, %t1 = "stablehlo.infeed"(%t0) {infeed_config = ""} : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
    %sum = stablehlo.add %a, %b : tensor<2xi64>
    %t2 = "stablehlo.outfeed"(%sum, %t1) {outfeed_config = ""} : (tensor<2xi64>, !stablehlo.token) -> !stablehlo.token
    return %a, %b, %t2 : tensor<2xi64>, tensor<2xi64>, !stablehlo.token
  }
  func.func @main() {
    %token = stablehlo.after_all : !stablehlo.token
    %r:3 = "interpreter.run_parallel"(%token) {
      infeed = [@first, @second],
      programs = [[@reader]]
    } : (!stablehlo.token) -> (tensor<2xi64>, tensor<2xi64>, !stablehlo.token)
    check.expect_eq_const %r#0, dense<[1, 2]> : tensor<2xi64>
    check.expect_eq_const %r#1, dense<[30, 40]> : tensor<2xi64>
    func.return
  }
}
"""


def test_run_parallel_feeds_infeed_in_order_and_takes_outfeed() -> None:
    """`infeed = [@f, ...]`: each stablehlo.infeed takes the next function's results."""
    report = run_text(FEEDS)
    assert not report.errors, [e.message for e in report.errors]
    assert report.count("pass") == len(report.results) == 2


def test_infeed_past_the_queue_is_a_clear_error() -> None:
    report = run_text(FEEDS.replace("infeed = [@first, @second]", "infeed = [@first]"))
    assert [e.message for e in report.errors] == ["infeed infeed.2: the infeed queue is empty"]
