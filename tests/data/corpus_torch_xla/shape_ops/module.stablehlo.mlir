module @IrToHlo.86 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<3x4xf32>, %arg1: tensor<3x4xf32>) -> (tensor<6x4xf32>, tensor<3x4x2xf32>, tensor<4x3xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x7xf32>, tensor<5x5xf32>, tensor<6x4xf32>, tensor<3x2xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<2x3x4xf32>, tensor<3x2xf32>, tensor<12xf32>, tensor<3xf32>, tensor<4x4xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<3x3xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<3x4xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_2 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %0 = stablehlo.concatenate %arg1, %arg0, dim = 0 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<6x4xf32>
    %1 = stablehlo.reshape %arg1 : (tensor<3x4xf32>) -> tensor<3x4x1xf32>
    %2 = stablehlo.reshape %arg0 : (tensor<3x4xf32>) -> tensor<3x4x1xf32>
    %3 = stablehlo.concatenate %1, %2, dim = 2 : (tensor<3x4x1xf32>, tensor<3x4x1xf32>) -> tensor<3x4x2xf32>
    %4 = stablehlo.transpose %arg1, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[4,3]{0,1}"} : (tensor<3x4xf32>) -> tensor<4x3xf32>
    %5 = stablehlo.reverse %arg1, dims = [0, 1] : tensor<3x4xf32>
    %6 = stablehlo.concatenate %arg1, %arg1, dim = 1 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x8xf32>
    %7 = stablehlo.slice %6 [0:3, 2:6] : (tensor<3x8xf32>) -> tensor<3x4xf32>
    %8 = stablehlo.reshape %arg1 : (tensor<3x4xf32>) -> tensor<1x3x4xf32>
    %9 = stablehlo.reverse %8, dims = [2] : tensor<1x3x4xf32>
    %10 = stablehlo.slice %9 [0:1, 0:3, 2:3] : (tensor<1x3x4xf32>) -> tensor<1x3x1xf32>
    %11 = stablehlo.slice %9 [0:1, 0:3, 1:3] : (tensor<1x3x4xf32>) -> tensor<1x3x2xf32>
    %12 = stablehlo.concatenate %10, %8, %11, dim = 2 : (tensor<1x3x1xf32>, tensor<1x3x4xf32>, tensor<1x3x2xf32>) -> tensor<1x3x7xf32>
    %13 = stablehlo.reshape %12 : (tensor<1x3x7xf32>) -> tensor<3x7xf32>
    %14 = stablehlo.pad %arg1, %cst_2, low = [2, 0], high = [0, 1], interior = [0, 0] : (tensor<3x4xf32>, tensor<f32>) -> tensor<5x5xf32>
    %15 = stablehlo.concatenate %arg1, %arg1, dim = 0 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<6x4xf32>
    %16 = stablehlo.slice %arg1 [0:3, 1:3] : (tensor<3x4xf32>) -> tensor<3x2xf32>
    %17 = stablehlo.iota dim = 0 : tensor<3xi32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [0] : (tensor<3xi32>) -> tensor<3x4xi32>
    %19 = stablehlo.iota dim = 0 : tensor<4xi32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [1] : (tensor<4xi32>) -> tensor<3x4xi32>
    %21 = stablehlo.compare  GE, %18, %20 : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
    %22 = stablehlo.select %21, %arg1, %cst_0 : tensor<3x4xi1>, tensor<3x4xf32>
    %23 = stablehlo.select %21, %cst_0, %arg0 : tensor<3x4xi1>, tensor<3x4xf32>
    %24 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<3x4xf32>) -> tensor<2x3x4xf32>
    %25 = stablehlo.slice %arg0 [0:3, 2:4] : (tensor<3x4xf32>) -> tensor<3x2xf32>
    %26 = stablehlo.reshape %arg1 : (tensor<3x4xf32>) -> tensor<12xf32>
    %27 = stablehlo.broadcast_in_dim %17, dims = [0] : (tensor<3xi32>) -> tensor<3x3xi32>
    %28 = stablehlo.broadcast_in_dim %17, dims = [1] : (tensor<3xi32>) -> tensor<3x3xi32>
    %29 = stablehlo.compare  EQ, %27, %28 : (tensor<3x3xi32>, tensor<3x3xi32>) -> tensor<3x3xi1>
    %30 = stablehlo.slice %arg1 [0:3, 0:3] : (tensor<3x4xf32>) -> tensor<3x3xf32>
    %31 = stablehlo.select %29, %30, %cst : tensor<3x3xi1>, tensor<3x3xf32>
    %32 = stablehlo.reduce(%31 init: %cst_1) applies stablehlo.add across dimensions = [0] : (tensor<3x3xf32>, tensor<f32>) -> tensor<3xf32>
    %33 = stablehlo.slice %arg0 [0:1, 0:4] : (tensor<3x4xf32>) -> tensor<1x4xf32>
    %34 = stablehlo.reshape %33 : (tensor<1x4xf32>) -> tensor<4xf32>
    %35 = stablehlo.broadcast_in_dim %34, dims = [1] : (tensor<4xf32>) -> tensor<4x4xf32>
    return %0, %3, %4, %5, %7, %13, %14, %15, %16, %22, %23, %24, %25, %26, %32, %35 : tensor<6x4xf32>, tensor<3x4x2xf32>, tensor<4x3xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x7xf32>, tensor<5x5xf32>, tensor<6x4xf32>, tensor<3x2xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<2x3x4xf32>, tensor<3x2xf32>, tensor<12xf32>, tensor<3xf32>, tensor<4x4xf32>
  }
}
