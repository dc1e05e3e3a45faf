module @IrToHlo.34 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<3x6xf32>, %arg2: tensor<4x9xi64>, %arg3: tensor<30x6xf32>) -> tensor<4x3xf32> {
    %cst = stablehlo.constant dense<0.111111112> : tensor<4x6xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reshape %arg2 : (tensor<4x9xi64>) -> tensor<36xi64>
    %1 = stablehlo.convert %0 : (tensor<36xi64>) -> tensor<36xui32>
    %2 = "stablehlo.gather"(%arg3, %1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 6>}> : (tensor<30x6xf32>, tensor<36xui32>) -> tensor<36x6xf32>
    %3 = stablehlo.reshape %2 : (tensor<36x6xf32>) -> tensor<4x9x6xf32>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<4x9x6xf32>, tensor<f32>) -> tensor<4x6xf32>
    %5 = stablehlo.multiply %4, %cst : tensor<4x6xf32>
    %6 = stablehlo.transpose %arg1, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[6,3]{0,1}"} : (tensor<3x6xf32>) -> tensor<6x3xf32>
    %7 = stablehlo.dot_general %5, %6, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>
    %8 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
    %9 = stablehlo.add %7, %8 : tensor<4x3xf32>
    return %9 : tensor<4x3xf32>
  }
}
