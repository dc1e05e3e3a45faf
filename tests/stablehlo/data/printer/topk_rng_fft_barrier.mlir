module @misc attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xf32>, %arg1: tensor<2xui64>) -> (tensor<4x3xf32>, tensor<4xui32>, tensor<4x8xcomplex<f32>>, tensor<4x8xf32>) {
    %values, %indices = chlo.top_k(%arg0, k = 3) : tensor<4x8xf32> -> (tensor<4x3xf32>, tensor<4x3xi32>)
    %output_state, %output = stablehlo.rng_bit_generator %arg1, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
    %0 = stablehlo.convert %arg0 : (tensor<4x8xf32>) -> tensor<4x8xcomplex<f32>>
    %1 = stablehlo.fft %0, type = FFT, length = [8] : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
    %2:2 = stablehlo.optimization_barrier %arg0, %output : tensor<4x8xf32>, tensor<4xui32>
    return %values, %output, %1, %2#0 : tensor<4x3xf32>, tensor<4xui32>, tensor<4x8xcomplex<f32>>, tensor<4x8xf32>
  }
}
