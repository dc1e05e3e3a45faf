// fft, cholesky, triangular_solve and rng_bit_generator; expected values recorded from
// jax 0.10.2 on CPU (jnp.fft, jnp.linalg.cholesky, lax.linalg.triangular_solve,
// lax.rng_bit_generator with key [1, 2]).
func.func @fft() {
  %x = stablehlo.constant dense<[(1.0, 0.0), (2.0, 0.0), (0.0, 0.0), (-1.0, 0.0)]> : tensor<4xcomplex<f32>>
  %f = stablehlo.fft %x, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %f, dense<[(2.0, 0.0), (1.0, -3.0), (0.0, 0.0), (1.0, 3.0)]> : tensor<4xcomplex<f32>>
  %back = stablehlo.fft %f, type = IFFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  check.expect_almost_eq %back, %x : tensor<4xcomplex<f32>>
  %r = stablehlo.constant dense<[1.0, 2.0, 0.0, -1.0]> : tensor<4xf32>
  %rf = stablehlo.fft %r, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<3xcomplex<f32>>
  check.expect_almost_eq_const %rf, dense<[(2.0, 0.0), (1.0, -3.0), (0.0, 0.0)]> : tensor<3xcomplex<f32>>
  %irf = stablehlo.fft %rf, type = IRFFT, length = [4] : (tensor<3xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq %irf, %r : tensor<4xf32>
  func.return
}

// -----

func.func @cholesky_triangular_solve() {
  %a = stablehlo.constant dense<[[4.0, 2.0], [2.0, 3.0]]> : tensor<2x2xf32>
  %c = stablehlo.cholesky %a, lower = true : tensor<2x2xf32>
  check.expect_almost_eq_const %c, dense<[[2.0, 0.0], [1.0, 1.4142135]]> : tensor<2x2xf32>
  %l = stablehlo.constant dense<[[2.0, 0.0], [1.0, 4.0]]> : tensor<2x2xf32>
  %b = stablehlo.constant dense<[[2.0, 4.0], [9.0, 6.0]]> : tensor<2x2xf32>
  %x = "stablehlo.triangular_solve"(%l, %b) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const %x, dense<[[1.0, 2.0], [2.0, 1.0]]> : tensor<2x2xf32>
  %y = "stablehlo.triangular_solve"(%l, %b) <{left_side = false, lower = true, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = false}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const %y, dense<[[1.0, 0.75], [4.5, 0.375]]> : tensor<2x2xf32>
  func.return
}

// -----

func.func @rng_bit_generator() {
  %key = stablehlo.constant dense<[1, 2]> : tensor<2xui64>
  %k0, %bits0 = stablehlo.rng_bit_generator %key, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  check.expect_eq_const %k0, dense<[1, 4]> : tensor<2xui64>
  check.expect_eq_const %bits0, dense<[43444564, 2150618427, 3979645651, 3745730563]> : tensor<4xui32>
  %k1, %bits1 = stablehlo.rng_bit_generator %key, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  check.expect_eq_const %k1, dense<[1, 3]> : tensor<2xui64>
  check.expect_eq_const %bits1, dense<[2100602697, 2847456232, 2074354647, 800269529]> : tensor<4xui32>
  func.return
}
