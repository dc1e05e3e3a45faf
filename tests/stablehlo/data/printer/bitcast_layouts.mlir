module @lay attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>) -> (tensor<12xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
    %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
    %2 = stablehlo.reshape %1 : (tensor<3x4xf32>) -> tensor<12xf32>
    %3 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
    return %2, %0, %3 : tensor<12xf32>, tensor<4x3xf32>, tensor<4x3xf32>
  }
}
