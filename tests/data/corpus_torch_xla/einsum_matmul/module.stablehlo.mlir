module @IrToHlo.72 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<3x5x4xf32>, %arg1: tensor<3x4x5xf32>, %arg2: tensor<f32>, %arg3: tensor<f32>, %arg4: tensor<3x4x4xf32>) -> (tensor<3x4x4xf32>, tensor<3x4x4xf32>, tensor<3x4x4xf32>, tensor<3xf32>, tensor<3x4x4xf32>, tensor<3x3xf32>, tensor<5x4xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<3x4x4xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.dot_general %arg1, %arg0, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] {mhlo.frontend_attributes = {grad_x = "false", grad_y = "false"}} : (tensor<3x4x5xf32>, tensor<3x5x4xf32>) -> tensor<3x4x4xf32>
    %1 = stablehlo.dot_general %arg1, %arg0, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<3x4x5xf32>, tensor<3x5x4xf32>) -> tensor<3x4x4xf32>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<3x4x4xf32>
    %3 = stablehlo.multiply %2, %1 : tensor<3x4x4xf32>
    %4 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<f32>) -> tensor<3x4x4xf32>
    %5 = stablehlo.multiply %4, %arg4 : tensor<3x4x4xf32>
    %6 = stablehlo.add %3, %5 : tensor<3x4x4xf32>
    %7 = stablehlo.iota dim = 0 : tensor<4xi32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<4xi32>) -> tensor<4x4xi32>
    %9 = stablehlo.broadcast_in_dim %7, dims = [1] : (tensor<4xi32>) -> tensor<4x4xi32>
    %10 = stablehlo.compare  EQ, %8, %9 : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %11 = stablehlo.broadcast_in_dim %10, dims = [1, 2] : (tensor<4x4xi1>) -> tensor<3x4x4xi1>
    %12 = stablehlo.slice %arg1 [0:3, 0:4, 0:4] : (tensor<3x4x5xf32>) -> tensor<3x4x4xf32>
    %13 = stablehlo.select %11, %12, %cst : tensor<3x4x4xi1>, tensor<3x4x4xf32>
    %14 = stablehlo.reduce(%13 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<3x4x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %15 = stablehlo.reduce(%14 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<3x4xf32>, tensor<f32>) -> tensor<3xf32>
    %16 = stablehlo.reshape %arg1 : (tensor<3x4x5xf32>) -> tensor<12x5xf32>
    %17 = stablehlo.slice %arg0 [0:1, 0:5, 0:4] : (tensor<3x5x4xf32>) -> tensor<1x5x4xf32>
    %18 = stablehlo.reshape %17 : (tensor<1x5x4xf32>) -> tensor<5x4xf32>
    %19 = stablehlo.dot_general %16, %18, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<12x5xf32>, tensor<5x4xf32>) -> tensor<12x4xf32>
    %20 = stablehlo.reshape %19 : (tensor<12x4xf32>) -> tensor<3x4x4xf32>
    %21 = stablehlo.reshape %arg1 : (tensor<3x4x5xf32>) -> tensor<3x20xf32>
    %22 = stablehlo.transpose %arg0, dims = [2, 1, 0] {result_layout = dense<[0, 1, 2]> : tensor<3xindex>, xla_shape = "f32[4,5,3]{0,1,2}"} : (tensor<3x5x4xf32>) -> tensor<4x5x3xf32>
    %23 = stablehlo.reshape %22 : (tensor<4x5x3xf32>) -> tensor<20x3xf32>
    %24 = stablehlo.dot_general %21, %23, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x20xf32>, tensor<20x3xf32>) -> tensor<3x3xf32>
    %25 = stablehlo.slice %arg1 [0:1, 0:4, 0:5] : (tensor<3x4x5xf32>) -> tensor<1x4x5xf32>
    %26 = stablehlo.reshape %25 : (tensor<1x4x5xf32>) -> tensor<4x5xf32>
    %27 = stablehlo.slice %26 [0:1, 0:5] : (tensor<4x5xf32>) -> tensor<1x5xf32>
    %28 = stablehlo.reshape %27 : (tensor<1x5xf32>) -> tensor<5xf32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0] : (tensor<5xf32>) -> tensor<5x4xf32>
    %30 = stablehlo.slice %18 [0:1, 0:4] : (tensor<5x4xf32>) -> tensor<1x4xf32>
    %31 = stablehlo.reshape %30 : (tensor<1x4xf32>) -> tensor<4xf32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [1] : (tensor<4xf32>) -> tensor<5x4xf32>
    %33 = stablehlo.multiply %29, %32 : tensor<5x4xf32>
    return %0, %1, %6, %15, %20, %24, %33 : tensor<3x4x4xf32>, tensor<3x4x4xf32>, tensor<3x4x4xf32>, tensor<3xf32>, tensor<3x4x4xf32>, tensor<3x3xf32>, tensor<5x4xf32>
  }
}
