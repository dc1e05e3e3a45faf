module @la attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3xf32>, %arg1: tensor<3x2xf32>, %arg2: tensor<2x3x4xf32>, %arg3: tensor<3xf32>, %arg4: tensor<3xf32>) -> (tensor<3x3xf32>, tensor<3x2xf32>, tensor<2x3x4xf32>) {
    %0 = stablehlo.cholesky %arg0, lower = true : tensor<3x3xf32>
    %1 = "stablehlo.triangular_solve"(%arg0, %arg1) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    %output, %batch_mean, %batch_var = "stablehlo.batch_norm_training"(%arg2, %arg3, %arg4) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
    %2 = stablehlo.rng %cst, %cst_0, %c, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x4xf32>
    return %0, %1, %output : tensor<3x3xf32>, tensor<3x2xf32>, tensor<2x3x4xf32>
  }
}
