module @IrToHlo.102 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<3x6xf32>, %arg2: tensor<6xf32>, %arg3: tensor<6x4x3x3xf32>, %arg4: tensor<4xf32>, %arg5: tensor<4xf32>, %arg6: tensor<4xf32>, %arg7: tensor<4xf32>, %arg8: tensor<4xf32>, %arg9: tensor<4x3x3x3xf32>, %arg10: tensor<2x3x10x10xf32>) -> tensor<2x3xf32> {
    %cst = stablehlo.constant dense<2.500000e-01> : tensor<2x6xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<2x4x10x10xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.convolution(%arg10, %arg9) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x3x10x10xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x10x10xf32>
    %1 = stablehlo.broadcast_in_dim %arg8, dims = [1] : (tensor<4xf32>) -> tensor<2x4x10x10xf32>
    %2 = stablehlo.add %0, %1 : tensor<2x4x10x10xf32>
    %3 = "stablehlo.batch_norm_inference"(%2, %arg7, %arg6, %arg5, %arg4) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<2x4x10x10xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x10x10xf32>
    %4 = stablehlo.maximum %3, %cst_0 : tensor<2x4x10x10xf32>
    %5 = "stablehlo.reduce_window"(%4, %cst_1) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>}> ({
    ^bb0(%arg11: tensor<f32>, %arg12: tensor<f32>):
      %15 = stablehlo.maximum %arg11, %arg12 : tensor<f32>
      stablehlo.return %15 : tensor<f32>
    }) : (tensor<2x4x10x10xf32>, tensor<f32>) -> tensor<2x4x5x5xf32>
    %6 = stablehlo.convolution(%5, %arg3) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<2x6x2x2xf32>
    %7 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<6xf32>) -> tensor<2x6x2x2xf32>
    %8 = stablehlo.add %6, %7 : tensor<2x6x2x2xf32>
    %9 = stablehlo.reduce(%8 init: %cst_2) applies stablehlo.add across dimensions = [3, 2] : (tensor<2x6x2x2xf32>, tensor<f32>) -> tensor<2x6xf32>
    %10 = stablehlo.multiply %9, %cst : tensor<2x6xf32>
    %11 = stablehlo.transpose %arg1, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[6,3]{0,1}"} : (tensor<3x6xf32>) -> tensor<6x3xf32>
    %12 = stablehlo.dot_general %10, %11, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6xf32>, tensor<6x3xf32>) -> tensor<2x3xf32>
    %13 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
    %14 = stablehlo.add %12, %13 : tensor<2x3xf32>
    return %14 : tensor<2x3xf32>
  }
}
