// Elementwise arithmetic, bitwise and rounding ops; expected values worked out by hand.
func.func @arith_int() {
  %a = stablehlo.constant dense<[7, -7, 12, 0]> : tensor<4xi32>
  %b = stablehlo.constant dense<[2, 2, -5, 3]> : tensor<4xi32>
  %add = stablehlo.add %a, %b : tensor<4xi32>
  check.expect_eq_const %add, dense<[9, -5, 7, 3]> : tensor<4xi32>
  %sub = stablehlo.subtract %a, %b : tensor<4xi32>
  check.expect_eq_const %sub, dense<[5, -9, 17, -3]> : tensor<4xi32>
  %mul = stablehlo.multiply %a, %b : tensor<4xi32>
  check.expect_eq_const %mul, dense<[14, -14, -60, 0]> : tensor<4xi32>
  %div = stablehlo.divide %a, %b : tensor<4xi32>
  check.expect_eq_const %div, dense<[3, -3, -2, 0]> : tensor<4xi32>
  %rem = stablehlo.remainder %a, %b : tensor<4xi32>
  check.expect_eq_const %rem, dense<[1, -1, 2, 0]> : tensor<4xi32>
  %neg = stablehlo.negate %a : tensor<4xi32>
  check.expect_eq_const %neg, dense<[-7, 7, -12, 0]> : tensor<4xi32>
  %abs = stablehlo.abs %a : tensor<4xi32>
  check.expect_eq_const %abs, dense<[7, 7, 12, 0]> : tensor<4xi32>
  %max = stablehlo.maximum %a, %b : tensor<4xi32>
  check.expect_eq_const %max, dense<[7, 2, 12, 3]> : tensor<4xi32>
  %min = stablehlo.minimum %a, %b : tensor<4xi32>
  check.expect_eq_const %min, dense<[2, -7, -5, 0]> : tensor<4xi32>
  %sign = stablehlo.sign %a : tensor<4xi32>
  check.expect_eq_const %sign, dense<[1, -1, 1, 0]> : tensor<4xi32>
  %e = stablehlo.constant dense<[2, 3, 0, 5]> : tensor<4xi32>
  %pow = stablehlo.power %b, %e : tensor<4xi32>
  check.expect_eq_const %pow, dense<[4, 8, 1, 243]> : tensor<4xi32>
  func.return
}

// -----

func.func @bitwise() {
  %a = stablehlo.constant dense<[12, -1, 5, 256]> : tensor<4xi32>
  %b = stablehlo.constant dense<[10, 1, 3, 4]> : tensor<4xi32>
  %and = stablehlo.and %a, %b : tensor<4xi32>
  check.expect_eq_const %and, dense<[8, 1, 1, 0]> : tensor<4xi32>
  %or = stablehlo.or %a, %b : tensor<4xi32>
  check.expect_eq_const %or, dense<[14, -1, 7, 260]> : tensor<4xi32>
  %xor = stablehlo.xor %a, %b : tensor<4xi32>
  check.expect_eq_const %xor, dense<[6, -2, 6, 260]> : tensor<4xi32>
  %not = stablehlo.not %a : tensor<4xi32>
  check.expect_eq_const %not, dense<[-13, 0, -6, -257]> : tensor<4xi32>
  %shl = stablehlo.shift_left %a, %b : tensor<4xi32>
  check.expect_eq_const %shl, dense<[12288, -2, 40, 4096]> : tensor<4xi32>
  %sra = stablehlo.shift_right_arithmetic %a, %b : tensor<4xi32>
  check.expect_eq_const %sra, dense<[0, -1, 0, 16]> : tensor<4xi32>
  %srl = stablehlo.shift_right_logical %a, %b : tensor<4xi32>
  check.expect_eq_const %srl, dense<[0, 2147483647, 0, 16]> : tensor<4xi32>
  %pop = stablehlo.popcnt %a : tensor<4xi32>
  check.expect_eq_const %pop, dense<[2, 32, 2, 1]> : tensor<4xi32>
  %clz = stablehlo.count_leading_zeros %a : tensor<4xi32>
  check.expect_eq_const %clz, dense<[28, 0, 29, 23]> : tensor<4xi32>
  %p = stablehlo.constant dense<[true, true, false, false]> : tensor<4xi1>
  %q = stablehlo.constant dense<[true, false, true, false]> : tensor<4xi1>
  %pand = stablehlo.and %p, %q : tensor<4xi1>
  check.expect_eq_const %pand, dense<[true, false, false, false]> : tensor<4xi1>
  %pxor = stablehlo.xor %p, %q : tensor<4xi1>
  check.expect_eq_const %pxor, dense<[false, true, true, false]> : tensor<4xi1>
  %pnot = stablehlo.not %p : tensor<4xi1>
  check.expect_eq_const %pnot, dense<[false, false, true, true]> : tensor<4xi1>
  func.return
}

// -----

func.func @float_rounding() {
  %x = stablehlo.constant dense<[-2.5, -0.5, 0.5, 1.5, 2.5, 3.7]> : tensor<6xf32>
  %floor = stablehlo.floor %x : tensor<6xf32>
  check.expect_eq_const %floor, dense<[-3.0, -1.0, 0.0, 1.0, 2.0, 3.0]> : tensor<6xf32>
  %ceil = stablehlo.ceil %x : tensor<6xf32>
  check.expect_eq_const %ceil, dense<[-2.0, -0.0, 1.0, 2.0, 3.0, 4.0]> : tensor<6xf32>
  %even = stablehlo.round_nearest_even %x : tensor<6xf32>
  check.expect_eq_const %even, dense<[-2.0, -0.0, 0.0, 2.0, 2.0, 4.0]> : tensor<6xf32>
  %afz = stablehlo.round_nearest_afz %x : tensor<6xf32>
  check.expect_eq_const %afz, dense<[-3.0, -1.0, 1.0, 2.0, 3.0, 4.0]> : tensor<6xf32>
  %sign = stablehlo.sign %x : tensor<6xf32>
  check.expect_eq_const %sign, dense<[-1.0, -1.0, 1.0, 1.0, 1.0, 1.0]> : tensor<6xf32>
  %abs = stablehlo.abs %x : tensor<6xf32>
  check.expect_eq_const %abs, dense<[2.5, 0.5, 0.5, 1.5, 2.5, 3.7]> : tensor<6xf32>
  %sq = stablehlo.multiply %x, %x : tensor<6xf32>
  check.expect_almost_eq_const %sq, dense<[6.25, 0.25, 0.25, 2.25, 6.25, 13.69]> : tensor<6xf32>
  %inf = stablehlo.constant dense<[0x7F800000, 0xFF800000, 0x7FC00000, 1.0, 0.0, -3.0]> : tensor<6xf32>
  %fin = stablehlo.is_finite %inf : (tensor<6xf32>) -> tensor<6xi1>
  check.expect_eq_const %fin, dense<[false, false, false, true, true, true]> : tensor<6xi1>
  %nanmax = stablehlo.maximum %inf, %x : tensor<6xf32>
  check.expect_eq_const %nanmax, dense<[0x7F800000, -0.5, 0x7FC00000, 1.5, 2.5, 3.7]> : tensor<6xf32>
  func.return
}
