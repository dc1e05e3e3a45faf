module @IrToHlo.41 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<5xf32>, %arg1: tensor<5x16xf32>, %arg2: tensor<16xf32>, %arg3: tensor<16x12xf32>, %arg4: tensor<4x12xf32>) -> tensor<4x5xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<4x16xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.transpose %arg3, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[12,16]{0,1}"} : (tensor<16x12xf32>) -> tensor<12x16xf32>
    %1 = stablehlo.dot_general %arg4, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x12xf32>, tensor<12x16xf32>) -> tensor<4x16xf32>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<16xf32>) -> tensor<4x16xf32>
    %3 = stablehlo.add %1, %2 : tensor<4x16xf32>
    %4 = stablehlo.maximum %3, %cst : tensor<4x16xf32>
    %5 = stablehlo.transpose %arg1, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[16,5]{0,1}"} : (tensor<5x16xf32>) -> tensor<16x5xf32>
    %6 = stablehlo.dot_general %4, %5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x5xf32>) -> tensor<4x5xf32>
    %7 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<5xf32>) -> tensor<4x5xf32>
    %8 = stablehlo.add %6, %7 : tensor<4x5xf32>
    %9 = stablehlo.reduce(%8 init: %cst_0) applies stablehlo.maximum across dimensions = [1] : (tensor<4x5xf32>, tensor<f32>) -> tensor<4xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0] : (tensor<4xf32>) -> tensor<4x5xf32>
    %11 = stablehlo.subtract %8, %10 : tensor<4x5xf32>
    %12 = stablehlo.exponential %11 : tensor<4x5xf32>
    %13 = stablehlo.reduce(%12 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<4x5xf32>, tensor<f32>) -> tensor<4xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0] : (tensor<4xf32>) -> tensor<4x5xf32>
    %15 = stablehlo.divide %12, %14 : tensor<4x5xf32>
    return %15 : tensor<4x5xf32>
  }
}
