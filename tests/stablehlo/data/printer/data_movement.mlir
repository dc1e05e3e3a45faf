module @mv attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<i32>) -> (tensor<4x2x3xf32>, tensor<3x2xf32>, tensor<6xf32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<6x4xf32>, tensor<2x3xi32>) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
    %1 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %2 = stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<6xf32>
    %3 = stablehlo.reverse %arg0, dims = [1] : tensor<2x3xf32>
    %4 = stablehlo.concatenate %arg0, %3, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    %5 = stablehlo.slice %4 [0:4:2, 1:3] : (tensor<4x3xf32>) -> tensor<2x2xf32>
    %6 = stablehlo.dynamic_slice %arg0, %arg1, %arg1, sizes = [1, 2] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
    %7 = stablehlo.dynamic_update_slice %arg0, %6, %arg1, %arg1 : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.pad %arg0, %cst, low = [1, 0], high = [2, 1], interior = [1, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<6x4xf32>
    %9 = stablehlo.iota dim = 1 : tensor<2x3xi32>
    return %0, %1, %2, %5, %7, %8, %9 : tensor<4x2x3xf32>, tensor<3x2xf32>, tensor<6xf32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<6x4xf32>, tensor<2x3xi32>
  }
}
