// Data movement: broadcast, reshape, transpose, slice, concatenate, pad, reverse, iota,
// dynamic_slice, dynamic_update_slice; expected values worked out by hand.
func.func @broadcast_reshape_transpose() {
  %v = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<3xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %b, dense<[[1, 2, 3], [1, 2, 3]]> : tensor<2x3xi32>
  %c = stablehlo.broadcast_in_dim %v, dims = [0] : (tensor<3xi32>) -> tensor<3x2xi32>
  check.expect_eq_const %c, dense<[[1, 1], [2, 2], [3, 3]]> : tensor<3x2xi32>
  %r = stablehlo.reshape %b : (tensor<2x3xi32>) -> tensor<3x2xi32>
  check.expect_eq_const %r, dense<[[1, 2], [3, 1], [2, 3]]> : tensor<3x2xi32>
  %i = stablehlo.iota dim = 0 : tensor<6xi32>
  %m = stablehlo.reshape %i : (tensor<6xi32>) -> tensor<2x3xi32>
  %t = stablehlo.transpose %m, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
  check.expect_eq_const %t, dense<[[0, 3], [1, 4], [2, 5]]> : tensor<3x2xi32>
  %i2 = stablehlo.iota dim = 1 : tensor<2x3xf32>
  check.expect_eq_const %i2, dense<[[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]> : tensor<2x3xf32>
  func.return
}

// -----

func.func @slice_concat_pad_reverse() {
  %i = stablehlo.iota dim = 0 : tensor<12xi32>
  %m = stablehlo.reshape %i : (tensor<12xi32>) -> tensor<3x4xi32>
  %s = stablehlo.slice %m [0:3:2, 1:4:2] : (tensor<3x4xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %s, dense<[[1, 3], [9, 11]]> : tensor<2x2xi32>
  %c = stablehlo.concatenate %s, %s, dim = 1 : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x4xi32>
  check.expect_eq_const %c, dense<[[1, 3, 1, 3], [9, 11, 9, 11]]> : tensor<2x4xi32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %p = stablehlo.pad %s, %zero, low = [1, 0], high = [0, -1], interior = [0, 1] : (tensor<2x2xi32>, tensor<i32>) -> tensor<3x2xi32>
  check.expect_eq_const %p, dense<[[0, 0], [1, 0], [9, 0]]> : tensor<3x2xi32>
  %rev = stablehlo.reverse %m, dims = [0, 1] : tensor<3x4xi32>
  check.expect_eq_const %rev, dense<[[11, 10, 9, 8], [7, 6, 5, 4], [3, 2, 1, 0]]> : tensor<3x4xi32>
  func.return
}

// -----

func.func @dynamic_slices() {
  %i = stablehlo.iota dim = 0 : tensor<12xi32>
  %m = stablehlo.reshape %i : (tensor<12xi32>) -> tensor<3x4xi32>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %big = stablehlo.constant dense<10> : tensor<i64>
  %d = stablehlo.dynamic_slice %m, %one, %big, sizes = [2, 2] : (tensor<3x4xi32>, tensor<i64>, tensor<i64>) -> tensor<2x2xi32>
  check.expect_eq_const %d, dense<[[6, 7], [10, 11]]> : tensor<2x2xi32>
  %u = stablehlo.constant dense<[[-1, -2]]> : tensor<1x2xi32>
  %neg = stablehlo.constant dense<-5> : tensor<i64>
  %w = stablehlo.dynamic_update_slice %m, %u, %big, %neg : (tensor<3x4xi32>, tensor<1x2xi32>, tensor<i64>, tensor<i64>) -> tensor<3x4xi32>
  check.expect_eq_const %w, dense<[[0, 1, 2, 3], [4, 5, 6, 7], [-1, -2, 10, 11]]> : tensor<3x4xi32>
  func.return
}
