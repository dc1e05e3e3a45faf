// Elementwise float math; expected values recorded from numpy (float64, rounded).
func.func @float_math() {
  %x = stablehlo.constant dense<[0.5, 1.25, 2, 3.5]> : tensor<4xf32>
  %y = stablehlo.constant dense<[2, -0.5, 4, 1.5]> : tensor<4xf32>
  %u0 = stablehlo.exponential %x : tensor<4xf32>
  check.expect_almost_eq_const %u0, dense<[1.6487213, 3.490343, 7.3890561, 33.115452]> : tensor<4xf32>
  %u1 = stablehlo.log %x : tensor<4xf32>
  check.expect_almost_eq_const %u1, dense<[-0.69314718, 0.22314355, 0.69314718, 1.252763]> : tensor<4xf32>
  %u2 = stablehlo.sqrt %x : tensor<4xf32>
  check.expect_almost_eq_const %u2, dense<[0.70710678, 1.118034, 1.4142136, 1.8708287]> : tensor<4xf32>
  %u3 = stablehlo.rsqrt %x : tensor<4xf32>
  check.expect_almost_eq_const %u3, dense<[1.4142136, 0.89442719, 0.70710678, 0.53452248]> : tensor<4xf32>
  %u4 = stablehlo.tanh %x : tensor<4xf32>
  check.expect_almost_eq_const %u4, dense<[0.46211716, 0.84828364, 0.96402758, 0.9981779]> : tensor<4xf32>
  %u5 = stablehlo.sine %x : tensor<4xf32>
  check.expect_almost_eq_const %u5, dense<[0.47942554, 0.94898462, 0.90929743, -0.35078323]> : tensor<4xf32>
  %u6 = stablehlo.cosine %x : tensor<4xf32>
  check.expect_almost_eq_const %u6, dense<[0.87758256, 0.31532236, -0.41614684, -0.93645669]> : tensor<4xf32>
  %u7 = stablehlo.tan %x : tensor<4xf32>
  check.expect_almost_eq_const %u7, dense<[0.54630249, 3.0095697, -2.1850399, 0.37458564]> : tensor<4xf32>
  %u8 = stablehlo.logistic %x : tensor<4xf32>
  check.expect_almost_eq_const %u8, dense<[0.62245933, 0.77729986, 0.88079708, 0.97068777]> : tensor<4xf32>
  %u9 = stablehlo.cbrt %x : tensor<4xf32>
  check.expect_almost_eq_const %u9, dense<[0.79370053, 1.0772173, 1.259921, 1.5182945]> : tensor<4xf32>
  %u10 = stablehlo.exponential_minus_one %x : tensor<4xf32>
  check.expect_almost_eq_const %u10, dense<[0.64872127, 2.490343, 6.3890561, 32.115452]> : tensor<4xf32>
  %u11 = stablehlo.log_plus_one %x : tensor<4xf32>
  check.expect_almost_eq_const %u11, dense<[0.40546511, 0.81093022, 1.0986123, 1.5040774]> : tensor<4xf32>
  %b0 = stablehlo.power %x, %y : tensor<4xf32>
  check.expect_almost_eq_const %b0, dense<[0.25, 0.89442719, 16, 6.5479004]> : tensor<4xf32>
  %b1 = stablehlo.atan2 %x, %y : tensor<4xf32>
  check.expect_almost_eq_const %b1, dense<[0.24497866, 1.9513027, 0.46364761, 1.1659045]> : tensor<4xf32>
  %b2 = stablehlo.divide %x, %y : tensor<4xf32>
  check.expect_almost_eq_const %b2, dense<[0.25, -2.5, 0.5, 2.3333333]> : tensor<4xf32>
  %b3 = stablehlo.remainder %x, %y : tensor<4xf32>
  check.expect_almost_eq_const %b3, dense<[0.5, 0.25, 2, 0.5]> : tensor<4xf32>
  func.return
}
