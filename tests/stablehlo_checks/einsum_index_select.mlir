// einsum, unary_einsum and torch_index_select (deprecated ops lowered as XLA does);
// expected values recorded from XLA (jax 0.10.2 compiling the same StableHLO); XLA cannot
// translate unary_einsum, so those expectations are numpy.einsum's (exact integers).
func.func @matmul() {
  %x0 = stablehlo.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]> : tensor<2x3xf32>
  %x1 = stablehlo.constant dense<[[-5.0, -4.0, -3.0, -2.0], [-1.0, 0.0, 1.0, 2.0], [3.0, 4.0, 5.0, 6.0]]> : tensor<3x4xf32>
  %r = "stablehlo.einsum"(%x0, %x1) {einsum_config = "ab,bc->ac"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  check.expect_almost_eq_const %r, dense<[[5.0, 8.0, 11.0, 14.0], [-4.0, 8.0, 20.0, 32.0]]> : tensor<2x4xf32>
  func.return
}

// -----

func.func @matmul_t() {
  %x0 = stablehlo.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]> : tensor<2x3xf32>
  %x1 = stablehlo.constant dense<[[-5.0, -4.0, -3.0, -2.0], [-1.0, 0.0, 1.0, 2.0], [3.0, 4.0, 5.0, 6.0]]> : tensor<3x4xf32>
  %r = "stablehlo.einsum"(%x0, %x1) {einsum_config = "ab,bc->ca"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<4x2xf32>
  check.expect_almost_eq_const %r, dense<[[5.0, -4.0], [8.0, 8.0], [11.0, 20.0], [14.0, 32.0]]> : tensor<4x2xf32>
  func.return
}

// -----

func.func @batch() {
  %x0 = stablehlo.constant dense<[[[0.0, 0.5, 1.0, 1.5], [2.0, 2.5, 3.0, 3.5], [4.0, 4.5, 5.0, 5.5]], [[6.0, 6.5, 7.0, 7.5], [8.0, 8.5, 9.0, 9.5], [10.0, 10.5, 11.0, 11.5]]]> : tensor<2x3x4xf32>
  %x1 = stablehlo.constant dense<[[[-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]]> : tensor<2x4x2xf32>
  %r = "stablehlo.einsum"(%x0, %x1) {einsum_config = "bij,bjk->bik"} : (tensor<2x3x4xf32>, tensor<2x4x2xf32>) -> tensor<2x3x2xf32>
  check.expect_almost_eq_const %r, dense<[[[5.0, 8.0], [5.0, 16.0], [5.0, 24.0]], [[221.0, 248.0], [285.0, 320.0], [349.0, 392.0]]]> : tensor<2x3x2xf32>
  func.return
}

// -----

func.func @batch_perm() {
  %x0 = stablehlo.constant dense<[[[0.0, 0.5, 1.0, 1.5], [2.0, 2.5, 3.0, 3.5], [4.0, 4.5, 5.0, 5.5]], [[6.0, 6.5, 7.0, 7.5], [8.0, 8.5, 9.0, 9.5], [10.0, 10.5, 11.0, 11.5]]]> : tensor<2x3x4xf32>
  %x1 = stablehlo.constant dense<[[[-3.0, -2.0], [-1.0, 0.0], [1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]]> : tensor<2x4x2xf32>
  %r = "stablehlo.einsum"(%x0, %x1) {einsum_config = "bij,bjk->kbi"} : (tensor<2x3x4xf32>, tensor<2x4x2xf32>) -> tensor<2x2x3xf32>
  check.expect_almost_eq_const %r, dense<[[[5.0, 5.0, 5.0], [221.0, 285.0, 349.0]], [[8.0, 16.0, 24.0], [248.0, 320.0, 392.0]]]> : tensor<2x2x3xf32>
  func.return
}

// -----

func.func @outer() {
  %x0 = stablehlo.constant dense<[[0.0, 1.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %x1 = stablehlo.constant dense<[[-5.0, -4.0, -3.0], [-1.0, 0.0, 1.0]]> : tensor<2x3xf32>
  %r = "stablehlo.einsum"(%x0, %x1) {einsum_config = "ab,cd->dcba"} : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<3x2x2x2xf32>
  check.expect_almost_eq_const %r, dense<[[[[-0.0, -15.0], [-5.0, -20.0]], [[-0.0, -3.0], [-1.0, -4.0]]], [[[-0.0, -12.0], [-4.0, -16.0]], [[0.0, 0.0], [0.0, 0.0]]], [[[-0.0, -9.0], [-3.0, -12.0]], [[0.0, 3.0], [1.0, 4.0]]]]> : tensor<3x2x2x2xf32>
  func.return
}

// -----

func.func @sum_one_side() {
  %x0 = stablehlo.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]> : tensor<2x3xf32>
  %x1 = stablehlo.constant dense<[[-5.0, -4.0, -3.0, -2.0], [-1.0, 0.0, 1.0, 2.0], [3.0, 4.0, 5.0, 6.0]]> : tensor<3x4xf32>
  %r = "stablehlo.einsum"(%x0, %x1) {einsum_config = "ab,bc->c"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  check.expect_almost_eq_const %r, dense<[1.0, 16.0, 31.0, 46.0]> : tensor<4xf32>
  func.return
}

// -----

func.func @full() {
  %x0 = stablehlo.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]> : tensor<2x3xf32>
  %x1 = stablehlo.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]> : tensor<2x3xf32>
  %r = "stablehlo.einsum"(%x0, %x1) {einsum_config = "ab,ab->"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  check.expect_almost_eq_const %r, dense<55.0> : tensor<f32>
  func.return
}

// -----

func.func @int_batch() {
  %x0 = stablehlo.constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<2x3x4xi32>
  %x1 = stablehlo.constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<2x3x4xi32>
  %r = "stablehlo.einsum"(%x0, %x1) {einsum_config = "bij,bkj->bik"} : (tensor<2x3x4xi32>, tensor<2x3x4xi32>) -> tensor<2x3x3xi32>
  check.expect_eq_const %r, dense<[[[14, 38, 62], [38, 126, 214], [62, 214, 366]], [[734, 950, 1166], [950, 1230, 1510], [1166, 1510, 1854]]]> : tensor<2x3x3xi32>
  func.return
}

// -----

func.func @u_transpose() {
  %x0 = stablehlo.constant dense<[[[0.0, 0.5, 1.0, 1.5], [2.0, 2.5, 3.0, 3.5], [4.0, 4.5, 5.0, 5.5]], [[6.0, 6.5, 7.0, 7.5], [8.0, 8.5, 9.0, 9.5], [10.0, 10.5, 11.0, 11.5]]]> : tensor<2x3x4xf32>
  %r = "stablehlo.unary_einsum"(%x0) {einsum_config = "abc->cab"} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  check.expect_almost_eq_const %r, dense<[[[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]], [[0.5, 2.5, 4.5], [6.5, 8.5, 10.5]], [[1.0, 3.0, 5.0], [7.0, 9.0, 11.0]], [[1.5, 3.5, 5.5], [7.5, 9.5, 11.5]]]> : tensor<4x2x3xf32>
  func.return
}

// -----

func.func @u_sum() {
  %x0 = stablehlo.constant dense<[[[0.0, 0.5, 1.0, 1.5], [2.0, 2.5, 3.0, 3.5], [4.0, 4.5, 5.0, 5.5]], [[6.0, 6.5, 7.0, 7.5], [8.0, 8.5, 9.0, 9.5], [10.0, 10.5, 11.0, 11.5]]]> : tensor<2x3x4xf32>
  %r = "stablehlo.unary_einsum"(%x0) {einsum_config = "abc->b"} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  check.expect_almost_eq_const %r, dense<[30.0, 46.0, 62.0]> : tensor<3xf32>
  func.return
}

// -----

func.func @u_all() {
  %x0 = stablehlo.constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<2x3x4xi32>
  %r = "stablehlo.unary_einsum"(%x0) {einsum_config = "abc->"} : (tensor<2x3x4xi32>) -> tensor<i32>
  check.expect_eq_const %r, dense<276> : tensor<i32>
  func.return
}

// -----

func.func @u_mixed() {
  %x0 = stablehlo.constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<2x3x4xi32>
  %r = "stablehlo.unary_einsum"(%x0) {einsum_config = "abc->ca"} : (tensor<2x3x4xi32>) -> tensor<4x2xi32>
  check.expect_eq_const %r, dense<[[12, 48], [15, 51], [18, 54], [21, 57]]> : tensor<4x2xi32>
  func.return
}

// -----

func.func @tis_rows() {
  %x0 = stablehlo.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]> : tensor<3x4xf32>
  %x1 = stablehlo.constant dense<[2, 0, 2, 1]> : tensor<4xi32>
  %r = "stablehlo.torch_index_select"(%x0, %x1) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<3x4xf32>, tensor<4xi32>) -> tensor<4x4xf32>
  check.expect_almost_eq_const %r, dense<[[8.0, 9.0, 10.0, 11.0], [0.0, 1.0, 2.0, 3.0], [8.0, 9.0, 10.0, 11.0], [4.0, 5.0, 6.0, 7.0]]> : tensor<4x4xf32>
  func.return
}

// -----

func.func @tis_cols_2d() {
  %x0 = stablehlo.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]> : tensor<3x4xf32>
  %x1 = stablehlo.constant dense<[[3, 1], [0, 0]]> : tensor<2x2xi32>
  %r = "stablehlo.torch_index_select"(%x0, %x1) {dim = 1 : i64, batch_dims = 0 : i64} : (tensor<3x4xf32>, tensor<2x2xi32>) -> tensor<3x2x2xf32>
  check.expect_almost_eq_const %r, dense<[[[3.0, 1.0], [0.0, 0.0]], [[7.0, 5.0], [4.0, 4.0]], [[11.0, 9.0], [8.0, 8.0]]]> : tensor<3x2x2xf32>
  func.return
}

// -----

func.func @tis_batch() {
  %x0 = stablehlo.constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<2x3x4xi32>
  %x1 = stablehlo.constant dense<[[3, 0], [1, 1]]> : tensor<2x2xi32>
  %r = "stablehlo.torch_index_select"(%x0, %x1) {dim = 2 : i64, batch_dims = 1 : i64} : (tensor<2x3x4xi32>, tensor<2x2xi32>) -> tensor<2x3x2xi32>
  check.expect_eq_const %r, dense<[[[3, 0], [7, 4], [11, 8]], [[13, 13], [17, 17], [21, 21]]]> : tensor<2x3x2xi32>
  func.return
}

// -----

func.func @tis_batch_mid() {
  %x0 = stablehlo.constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<2x3x4xi32>
  %x1 = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi32>
  %r = "stablehlo.torch_index_select"(%x0, %x1) {dim = 1 : i64, batch_dims = 1 : i64} : (tensor<2x3x4xi32>, tensor<2x1xi32>) -> tensor<2x1x4xi32>
  check.expect_eq_const %r, dense<[[[8, 9, 10, 11]], [[12, 13, 14, 15]]]> : tensor<2x1x4xi32>
  func.return
}
