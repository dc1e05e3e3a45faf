module @IrToHlo.65 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8x8xf32>, %arg3: tensor<3x5x8xf32>, %arg4: tensor<8xf32>) -> tensor<3x5x8xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<3x5x8xf32>
    %cst_0 = stablehlo.constant dense<0.707106769> : tensor<3x5x8xf32>
    %cst_1 = stablehlo.constant dense<5.000000e-01> : tensor<3x5x8xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<15xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<15xf32>
    %0 = stablehlo.reshape %arg3 : (tensor<3x5x8xf32>) -> tensor<15x8xf32>
    %1 = stablehlo.transpose %arg2, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[8,8]{0,1}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %2 = stablehlo.dot_general %0, %1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<15x8xf32>, tensor<8x8xf32>) -> tensor<15x8xf32>
    %3 = stablehlo.reshape %2 : (tensor<15x8xf32>) -> tensor<3x5x8xf32>
    %4 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<8xf32>) -> tensor<3x5x8xf32>
    %5 = stablehlo.add %3, %4 : tensor<3x5x8xf32>
    %6 = stablehlo.reshape %5 : (tensor<3x5x8xf32>) -> tensor<1x15x8xf32>
    %output, %batch_mean, %batch_var = "stablehlo.batch_norm_training"(%6, %cst_3, %cst_2) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<1x15x8xf32>, tensor<15xf32>, tensor<15xf32>) -> (tensor<1x15x8xf32>, tensor<15xf32>, tensor<15xf32>)
    %7 = stablehlo.broadcast_in_dim %arg4, dims = [2] : (tensor<8xf32>) -> tensor<3x5x8xf32>
    %8 = stablehlo.reshape %output : (tensor<1x15x8xf32>) -> tensor<3x5x8xf32>
    %9 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<8xf32>) -> tensor<3x5x8xf32>
    %10 = stablehlo.multiply %8, %9 : tensor<3x5x8xf32>
    %11 = stablehlo.add %7, %10 : tensor<3x5x8xf32>
    %12 = stablehlo.multiply %11, %cst_1 : tensor<3x5x8xf32>
    %13 = stablehlo.multiply %11, %cst_0 : tensor<3x5x8xf32>
    %14 = stablehlo.custom_call @mhlo.erf(%13) {mhlo.attributes = {}, mhlo.version = 1 : i64} : (tensor<3x5x8xf32>) -> tensor<3x5x8xf32>
    %15 = stablehlo.add %14, %cst : tensor<3x5x8xf32>
    %16 = stablehlo.multiply %12, %15 : tensor<3x5x8xf32>
    return %16 : tensor<3x5x8xf32>
  }
}
