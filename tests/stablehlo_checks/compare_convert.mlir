// compare (signed, unsigned, float, total order), select, clamp, convert, bitcast_convert,
// reduce_precision; expected values worked out by hand.
func.func @compare_select() {
  %a = stablehlo.constant dense<[-1, 0, 3]> : tensor<3xi32>
  %b = stablehlo.constant dense<[0, 0, 2]> : tensor<3xi32>
  %lt = stablehlo.compare LT, %a, %b, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  check.expect_eq_const %lt, dense<[true, false, false]> : tensor<3xi1>
  %ge = stablehlo.compare GE, %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  check.expect_eq_const %ge, dense<[false, true, true]> : tensor<3xi1>
  %ua = stablehlo.constant dense<[255, 0, 3]> : tensor<3xui8>
  %ub = stablehlo.constant dense<[1, 0, 4]> : tensor<3xui8>
  %ugt = stablehlo.compare GT, %ua, %ub, UNSIGNED : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xi1>
  check.expect_eq_const %ugt, dense<[true, false, false]> : tensor<3xi1>
  %x = stablehlo.constant dense<[1.0, 0x7FC00000, -0.0]> : tensor<3xf32>
  %y = stablehlo.constant dense<[1.0, 0x7FC00000, 0.0]> : tensor<3xf32>
  %eq = stablehlo.compare EQ, %x, %y, FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  check.expect_eq_const %eq, dense<[true, false, true]> : tensor<3xi1>
  %ne = stablehlo.compare NE, %x, %y, FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  check.expect_eq_const %ne, dense<[false, true, false]> : tensor<3xi1>
  %tlt = stablehlo.compare LT, %x, %y, TOTALORDER : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  check.expect_eq_const %tlt, dense<[false, false, true]> : tensor<3xi1>
  %sel = stablehlo.select %lt, %a, %b : tensor<3xi1>, tensor<3xi32>
  check.expect_eq_const %sel, dense<[-1, 0, 2]> : tensor<3xi32>
  %lo = stablehlo.constant dense<0> : tensor<i32>
  %hi = stablehlo.constant dense<2> : tensor<i32>
  %cl = stablehlo.clamp %lo, %a, %hi : (tensor<i32>, tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
  check.expect_eq_const %cl, dense<[0, 0, 2]> : tensor<3xi32>
  func.return
}

// -----

func.func @convert() {
  %f = stablehlo.constant dense<[-2.75, -0.5, 1.5, 300.25]> : tensor<4xf32>
  %i = stablehlo.convert %f : (tensor<4xf32>) -> tensor<4xi32>
  check.expect_eq_const %i, dense<[-2, 0, 1, 300]> : tensor<4xi32>
  %u = stablehlo.convert %i : (tensor<4xi32>) -> tensor<4xui8>
  check.expect_eq_const %u, dense<[254, 0, 1, 44]> : tensor<4xui8>
  %back = stablehlo.convert %u : (tensor<4xui8>) -> tensor<4xf32>
  check.expect_eq_const %back, dense<[254.0, 0.0, 1.0, 44.0]> : tensor<4xf32>
  %p = stablehlo.convert %i : (tensor<4xi32>) -> tensor<4xi1>
  check.expect_eq_const %p, dense<[true, false, true, true]> : tensor<4xi1>
  %h = stablehlo.constant dense<[1.0, 1.00390625, 1.01171875, 3.0e+38]> : tensor<4xf32>
  %bf = stablehlo.convert %h : (tensor<4xf32>) -> tensor<4xbf16>
  check.expect_eq_const %bf, dense<[1.0, 1.0, 1.015625, 2.99815E+38]> : tensor<4xbf16>
  %rp = stablehlo.reduce_precision %h, format = e5m2 : tensor<4xf32>
  check.expect_eq_const %rp, dense<[1.0, 1.0, 1.0, 0x7F800000]> : tensor<4xf32>
  func.return
}

// -----

func.func @bitcast_convert() {
  %f = stablehlo.constant dense<[1.0, -2.0, 0.0]> : tensor<3xf32>
  %b = stablehlo.bitcast_convert %f : (tensor<3xf32>) -> tensor<3xi32>
  check.expect_eq_const %b, dense<[1065353216, -1073741824, 0]> : tensor<3xi32>
  %w = stablehlo.constant dense<[1065353216, 0x40490FDB]> : tensor<2xui32>
  %g = stablehlo.bitcast_convert %w : (tensor<2xui32>) -> tensor<2xf32>
  check.expect_almost_eq_const %g, dense<[1.0, 3.14159274]> : tensor<2xf32>
  %s = stablehlo.bitcast_convert %w : (tensor<2xui32>) -> tensor<2x2xui16>
  check.expect_eq_const %s, dense<[[0, 16256], [4059, 16457]]> : tensor<2x2xui16>
  %j = stablehlo.bitcast_convert %s : (tensor<2x2xui16>) -> tensor<2xui32>
  check.expect_eq %j, %w : tensor<2xui32>
  func.return
}
