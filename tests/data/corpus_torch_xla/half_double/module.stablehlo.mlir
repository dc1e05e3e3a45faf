module @IrToHlo.35 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<8x3xf32>, %arg1: tensor<4x8xf32>) -> (tensor<4x3xf16>, tensor<4xf32>, tensor<4x8xf64>, tensor<f64>) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<4x8xf64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<4x8xf16>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f16>
    %0 = stablehlo.convert %arg1 : (tensor<4x8xf32>) -> tensor<4x8xf16>
    %1 = stablehlo.convert %arg0 : (tensor<8x3xf32>) -> tensor<8x3xf16>
    %2 = stablehlo.dot_general %0, %1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf16>, tensor<8x3xf16>) -> tensor<4x3xf16>
    %3 = stablehlo.maximum %0, %cst_0 : tensor<4x8xf16>
    %4 = stablehlo.convert %3 : (tensor<4x8xf16>) -> tensor<4x8xf32>
    %5 = stablehlo.convert %0 : (tensor<4x8xf16>) -> tensor<4x8xf32>
    %6 = stablehlo.multiply %4, %5 : tensor<4x8xf32>
    %7 = stablehlo.convert %6 : (tensor<4x8xf32>) -> tensor<4x8xf16>
    %8 = stablehlo.reduce(%7 init: %cst_2) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf16>, tensor<f16>) -> tensor<4xf16>
    %9 = stablehlo.convert %8 : (tensor<4xf16>) -> tensor<4xf32>
    %10 = stablehlo.convert %arg1 : (tensor<4x8xf32>) -> tensor<4x8xf64>
    %11 = stablehlo.power %10, %cst : tensor<4x8xf64>
    %12 = stablehlo.exponential %10 : tensor<4x8xf64>
    %13 = stablehlo.reduce(%12 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x8xf64>, tensor<f64>) -> tensor<f64>
    return %2, %9, %11, %13 : tensor<4x3xf16>, tensor<4xf32>, tensor<4x8xf64>, tensor<f64>
  }
}
