module @IrToHlo.92 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<8x2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<2x6xf32>, %arg3: tensor<6xf32>, %arg4: tensor<6x4xf32>, %arg5: tensor<8x4xf32>, %arg6: tensor<f32>) -> (tensor<f32>, tensor<6x4xf32>, tensor<6xf32>, tensor<2x6xf32>, tensor<2xf32>, tensor<6x4xf32>, tensor<6xf32>, tensor<2x6xf32>, tensor<2xf32>) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<8x6xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<8x6xf32>
    %cst_1 = stablehlo.constant dense<6.250000e-02> : tensor<8x2xf32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<8x2xf32>
    %cst_3 = stablehlo.constant dense<6.250000e-02> : tensor<f32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.transpose %arg4, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[4,6]{0,1}"} : (tensor<6x4xf32>) -> tensor<4x6xf32>
    %1 = stablehlo.dot_general %arg5, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
    %2 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<6xf32>) -> tensor<8x6xf32>
    %3 = stablehlo.add %1, %2 : tensor<8x6xf32>
    %4 = stablehlo.tanh %3 : tensor<8x6xf32>
    %5 = stablehlo.transpose %arg2, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[6,2]{0,1}"} : (tensor<2x6xf32>) -> tensor<6x2xf32>
    %6 = stablehlo.dot_general %4, %5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x6xf32>, tensor<6x2xf32>) -> tensor<8x2xf32>
    %7 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<2xf32>) -> tensor<8x2xf32>
    %8 = stablehlo.add %6, %7 : tensor<8x2xf32>
    %9 = stablehlo.subtract %8, %arg0 : tensor<8x2xf32>
    %10 = stablehlo.multiply %9, %9 : tensor<8x2xf32>
    %11 = stablehlo.reduce(%10 init: %cst_4) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x2xf32>, tensor<f32>) -> tensor<f32>
    %12 = stablehlo.multiply %11, %cst_3 : tensor<f32>
    %13 = stablehlo.transpose %arg5, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[4,8]{0,1}"} : (tensor<8x4xf32>) -> tensor<4x8xf32>
    %14 = stablehlo.multiply %9, %cst_2 : tensor<8x2xf32>
    %15 = stablehlo.multiply %14, %cst_1 : tensor<8x2xf32>
    %16 = stablehlo.dot_general %15, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x2xf32>, tensor<2x6xf32>) -> tensor<8x6xf32>
    %17 = stablehlo.power %4, %cst : tensor<8x6xf32>
    %18 = stablehlo.subtract %cst_0, %17 : tensor<8x6xf32>
    %19 = stablehlo.multiply %16, %18 : tensor<8x6xf32>
    %20 = stablehlo.dot_general %13, %19, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
    %21 = stablehlo.transpose %20, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[6,4]{0,1}"} : (tensor<4x6xf32>) -> tensor<6x4xf32>
    %22 = stablehlo.broadcast_in_dim %arg6, dims = [] : (tensor<f32>) -> tensor<6x4xf32>
    %23 = stablehlo.multiply %21, %22 : tensor<6x4xf32>
    %24 = stablehlo.add %arg4, %23 : tensor<6x4xf32>
    %25 = stablehlo.reduce(%19 init: %cst_4) applies stablehlo.add across dimensions = [0] : (tensor<8x6xf32>, tensor<f32>) -> tensor<6xf32>
    %26 = stablehlo.broadcast_in_dim %arg6, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %27 = stablehlo.multiply %25, %26 : tensor<6xf32>
    %28 = stablehlo.add %arg3, %27 : tensor<6xf32>
    %29 = stablehlo.transpose %4, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[6,8]{0,1}"} : (tensor<8x6xf32>) -> tensor<6x8xf32>
    %30 = stablehlo.dot_general %29, %15, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x8xf32>, tensor<8x2xf32>) -> tensor<6x2xf32>
    %31 = stablehlo.transpose %30, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[2,6]{0,1}"} : (tensor<6x2xf32>) -> tensor<2x6xf32>
    %32 = stablehlo.broadcast_in_dim %arg6, dims = [] : (tensor<f32>) -> tensor<2x6xf32>
    %33 = stablehlo.multiply %31, %32 : tensor<2x6xf32>
    %34 = stablehlo.add %arg2, %33 : tensor<2x6xf32>
    %35 = stablehlo.reduce(%15 init: %cst_4) applies stablehlo.add across dimensions = [0] : (tensor<8x2xf32>, tensor<f32>) -> tensor<2xf32>
    %36 = stablehlo.broadcast_in_dim %arg6, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %37 = stablehlo.multiply %35, %36 : tensor<2xf32>
    %38 = stablehlo.add %arg1, %37 : tensor<2xf32>
    return %12, %24, %28, %34, %38, %21, %25, %31, %35 : tensor<f32>, tensor<6x4xf32>, tensor<6xf32>, tensor<2x6xf32>, tensor<2xf32>, tensor<6x4xf32>, tensor<6xf32>, tensor<2x6xf32>, tensor<2xf32>
  }
}
