module @IrToHlo.28 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4x1x3x3xf32>, %arg2: tensor<1x4x6x6xf32>, %arg3: tensor<2xf32>, %arg4: tensor<4x2x3x3xf32>, %arg5: tensor<5xf32>, %arg6: tensor<5x3x3xf32>, %arg7: tensor<2x3x12xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x2x12x12xf32>, tensor<2x5x8xf32>) {
    %0 = stablehlo.convolution(%arg2, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 4 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x6x6xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<4xf32>) -> tensor<1x4x6x6xf32>
    %2 = stablehlo.add %0, %1 : tensor<1x4x6x6xf32>
    %3 = stablehlo.transpose %arg4, dims = [2, 3, 1, 0] {result_layout = dense<[1, 0, 2, 3]> : tensor<4xindex>, xla_shape = "f32[3,3,2,4]{1,0,2,3}"} : (tensor<4x2x3x3xf32>) -> tensor<3x3x2x4xf32>
    %4 = stablehlo.reverse %3, dims = [0, 1] {result_layout = dense<[1, 0, 2, 3]> : tensor<4xindex>, xla_shape = "f32[3,3,2,4]{1,0,2,3}"} : tensor<3x3x2x4xf32>
    %5 = stablehlo.convolution(%arg2, %4) dim_numbers = [b, f, 0, 1]x[0, 1, o, i]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 2], [1, 2]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x6x6xf32>, tensor<3x3x2x4xf32>) -> tensor<1x2x12x12xf32>
    %6 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<2xf32>) -> tensor<1x2x12x12xf32>
    %7 = stablehlo.add %5, %6 : tensor<1x2x12x12xf32>
    %8 = stablehlo.reshape %arg7 : (tensor<2x3x12xf32>) -> tensor<2x3x1x12xf32>
    %9 = stablehlo.reshape %arg6 : (tensor<5x3x3xf32>) -> tensor<5x3x1x3xf32>
    %10 = stablehlo.convolution(%8, %9) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 2], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x3x1x12xf32>, tensor<5x3x1x3xf32>) -> tensor<2x5x1x8xf32>
    %11 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<5xf32>) -> tensor<2x5x1x8xf32>
    %12 = stablehlo.add %10, %11 : tensor<2x5x1x8xf32>
    %13 = stablehlo.reshape %12 : (tensor<2x5x1x8xf32>) -> tensor<2x5x8xf32>
    return %2, %7, %13 : tensor<1x4x6x6xf32>, tensor<1x2x12x12xf32>, tensor<2x5x8xf32>
  }
}
