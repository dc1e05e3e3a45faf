// dot_general, dot and convolution; expected values by hand (dots) and recorded from jax
// (lax.conv_general_dilated).
func.func @dot_general() {
  %i = stablehlo.iota dim = 0 : tensor<12xi32>
  %a = stablehlo.reshape %i : (tensor<12xi32>) -> tensor<2x2x3xi32>
  %b = stablehlo.reshape %i : (tensor<12xi32>) -> tensor<2x3x2xi32>
  %r = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x2x3xi32>, tensor<2x3x2xi32>) -> tensor<2x2x2xi32>
  check.expect_eq_const %r, dense<[[[10, 13], [28, 40]], [[172, 193], [244, 274]]]> : tensor<2x2x2xi32>
  %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %y = stablehlo.constant dense<[5.0, 6.0]> : tensor<2xf32>
  %mv = stablehlo.dot %x, %y : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2xf32>
  check.expect_almost_eq_const %mv, dense<[17.0, 39.0]> : tensor<2xf32>
  func.return
}

// -----

func.func @convolution() {
  %i = stablehlo.iota dim = 0 : tensor<16xf32>
  %one = stablehlo.constant dense<1.0> : tensor<16xf32>
  %i1 = stablehlo.add %i, %one : tensor<16xf32>
  %lhs = stablehlo.reshape %i1 : (tensor<16xf32>) -> tensor<1x1x4x4xf32>
  %rhs = stablehlo.constant dense<[[[[1.0, 0.0], [0.0, -1.0]]]]> : tensor<1x1x2x2xf32>
  %valid = stablehlo.convolution(%lhs, %rhs) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x3x3xf32>
  check.expect_almost_eq_const %valid, dense<-5.0> : tensor<1x1x3x3xf32>
  %strided = stablehlo.convolution(%lhs, %rhs) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2], pad = [[1, 0], [0, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  check.expect_almost_eq_const %strided, dense<[[[[-2.0, -4.0], [-5.0, -5.0]]]]> : tensor<1x1x2x2xf32>
  func.return
}
