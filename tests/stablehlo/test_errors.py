"""Bad StableHLO input: every problem is an HloError at the right line:column, never
another exception."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from hlotool.diagnostics import HloError
from hlotool.stablehlo import parse_stablehlo
from hlotool.verifier import verify

DATA = Path(__file__).parent / "data"


def main(body: str, args: str = "%a: tensor<4xf32>", result: str = "tensor<4xf32>") -> str:
    return f"func.func @main({args}) -> {result} {{\n{body}\n}}\n"


RET = "  return %0 : tensor<4xf32>"

CASES = {
    "missing result type": (main("  %0 = stablehlo.add %a, %a\n" + RET), (3, 3), "': type' of stablehlo.add"),
    "unknown op": (main("  %0 = stablehlo.addd %a, %a : tensor<4xf32>\n" + RET), (2, 8),
                   "unsupported op 'stablehlo.addd'"),
    "undefined value": (main("  %0 = stablehlo.add %a, %b : tensor<4xf32>\n" + RET), (2, 26),
                        "%b is not defined"),
    "result count": (main("  %0:2 = stablehlo.add %a, %a : tensor<4xf32>\n  return %0#0 : tensor<4xf32>"),
                     (2, 3), "has 1 result, but the text names 2"),
    "type mismatch": (main("  %0 = stablehlo.add %a, %a : tensor<4xf32>\n" + RET, "%a: tensor<3xf32>"),
                      (2, 8), "the text says f32[4], but the value is f32[3]"),
    "dense shape": (main("  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<4xf32>\n" + RET, ""),
                    (2, 27), "does not have the shape of tensor<4xf32>"),
    "unterminated": ("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %a : tensor<4xf32>\n",
                     (2, 28), "unexpected end of input"),
    "element type": (main("  return %a : tensor<4xq7>", "%a: tensor<4xq7>", "tensor<4xq7>"), (1, 30),
                     "unsupported element type 'q7'"),
    "duplicate attribute": (main("  %0 = stablehlo.abs %a {x = 1, x = 2} : tensor<4xf32>\n" + RET), (2, 33),
                            "duplicate attribute 'x'"),
    "result index": (main("  %0:2 = stablehlo.optimization_barrier %a, %a : tensor<4xf32>, tensor<4xf32>\n"
                          "  return %0#2 : tensor<4xf32>"), (3, 10), "#2 does not exist"),
    "recursion": (main("  %0 = call @main(%a) : (tensor<4xf32>) -> tensor<4xf32>\n" + RET), (2, 13),
                  "called recursively"),
    "bad character": (main("  return %a : tensor<4xf32> $"), (2, 29), "unexpected character '$'"),
    "pretty keyword": (main("  %0 = stablehlo.reverse %a, dimz = [0] : tensor<4xf32>\n" + RET), (2, 30),
                       "unknown keyword 'dimz'"),
    "no terminator": (main("  %0 = stablehlo.abs %a : tensor<4xf32>"), (2, 8), "must end with a return"),
    "unknown callee": (main("  %0 = call @nope(%a) : (tensor<4xf32>) -> tensor<4xf32>\n" + RET), (2, 13),
                       "@nope is not defined"),
    "enum value": (main("  %0 = stablehlo.compare GTE, %a, %a : (tensor<4xf32>, tensor<4xf32>) -> "
                        "tensor<4xi1>\n  return %0 : tensor<4xi1>", result="tensor<4xi1>"), (2, 26),
                   "should be one of EQ, NE"),
    "shape rule": (main("  %0 = stablehlo.transpose %a, dims = [0] : (tensor<4xf32>) -> tensor<5xf32>\n"
                        "  return %0 : tensor<5xf32>", result="tensor<5xf32>"), (2, 8),
                   "transpose of these operands gives f32[4]"),
    "unranked tensor": (main("  return %a : tensor<*xf32>", "%a: tensor<*xf32>", "tensor<*xf32>"), (1, 28),
                        "unexpected '*'"),
    "empty input": ("  \n", (1, 1), "empty input"),
    "two modules": ("module {\n  func.func @main() {\n    return\n  }\n}\n// -----\n"
                    "module {\n  func.func @main() {\n    return\n  }\n}\n", (7, 1), "2 modules"),
    "missing arrow": (main("  %0 = stablehlo.convert %a : (tensor<4xf32>)\n" + RET), (2, 8),
                      "must be followed by '->'"),
    "bad slice": (main("  %0 = stablehlo.slice %a [1] : (tensor<4xf32>) -> tensor<4xf32>\n" + RET), (2, 24),
                  "needs a limit"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CASES))
def test_error_position_and_message(name: str) -> None:
    text, (line, column), message = CASES[name]
    with pytest.raises(HloError) as info:
        verify(parse_stablehlo(text))
    assert (info.value.line, info.value.column) == (line, column), str(info.value)
    assert message in info.value.message


def test_syntax_errors_list_what_was_expected() -> None:
    with pytest.raises(HloError) as info:
        parse_stablehlo(main("  %0 = stablehlo.add %a, %a : tensor<4xf32>\n  return %0 :"))
    assert info.value.expected and info.value.line == 4


def test_mutated_corpus_text_only_raises_hlo_errors() -> None:
    rng = random.Random(1234)
    texts = [p.read_text() for p in sorted((DATA / "corpus").glob("*.mlir"))[:25]]
    for _ in range(150):
        text = rng.choice(texts)
        tokens = re.findall(r"\s+|[%@#!^]?[\w.$-]+|\"(?:[^\"\\]|\\.)*\"|.", text)
        k = rng.randrange(len(tokens))
        action = rng.randrange(3)
        if action == 0:
            tokens[k] = ""
        elif action == 1:
            tokens[k] = rng.choice(tokens)
        else:
            tokens = tokens[:k]
        try:
            verify(parse_stablehlo("".join(tokens)))
        except HloError as exc:
            assert exc.line > 0, str(exc)
