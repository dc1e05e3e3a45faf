module @IrToHlo.98 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<8xf32>, %arg1: tensor<8x8xf32>, %arg2: tensor<24xf32>, %arg3: tensor<24x8xf32>, %arg4: tensor<2x6x8xf32>, %arg5: tensor<f32>, %arg6: tensor<2x5x8xf32>) -> (tensor<2x5x8xf32>, tensor<2x5x6xf32>) {
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<2x5x6xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.transpose %arg6, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[5,2,8]{2,0,1}"} : (tensor<2x5x8xf32>) -> tensor<5x2x8xf32>
    %1 = stablehlo.reshape %0 : (tensor<5x2x8xf32>) -> tensor<10x8xf32>
    %2 = stablehlo.slice %arg3 [0:8, 0:8] : (tensor<24x8xf32>) -> tensor<8x8xf32>
    %3 = stablehlo.transpose %2, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[8,8]{0,1}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %4 = stablehlo.dot_general %1, %3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<10x8xf32>, tensor<8x8xf32>) -> tensor<10x8xf32>
    %5 = stablehlo.reshape %4 : (tensor<10x8xf32>) -> tensor<5x2x8xf32>
    %6 = stablehlo.slice %arg2 [0:8] : (tensor<24xf32>) -> tensor<8xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [2] : (tensor<8xf32>) -> tensor<5x2x8xf32>
    %8 = stablehlo.add %5, %7 : tensor<5x2x8xf32>
    %9 = stablehlo.reshape %8 : (tensor<5x2x8xf32>) -> tensor<5x4x4xf32>
    %10 = stablehlo.transpose %9, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[4,5,4]{2,0,1}"} : (tensor<5x4x4xf32>) -> tensor<4x5x4xf32>
    %11 = stablehlo.broadcast_in_dim %arg5, dims = [] : (tensor<f32>) -> tensor<4x5x4xf32>
    %12 = stablehlo.multiply %10, %11 : tensor<4x5x4xf32>
    %13 = stablehlo.transpose %arg4, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[6,2,8]{2,0,1}"} : (tensor<2x6x8xf32>) -> tensor<6x2x8xf32>
    %14 = stablehlo.reshape %13 : (tensor<6x2x8xf32>) -> tensor<12x8xf32>
    %15 = stablehlo.slice %arg3 [8:24, 0:8] : (tensor<24x8xf32>) -> tensor<16x8xf32>
    %16 = stablehlo.transpose %15, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[8,16]{0,1}"} : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %17 = stablehlo.dot_general %14, %16, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<12x8xf32>, tensor<8x16xf32>) -> tensor<12x16xf32>
    %18 = stablehlo.reshape %17 : (tensor<12x16xf32>) -> tensor<6x2x16xf32>
    %19 = stablehlo.slice %arg2 [8:24] : (tensor<24xf32>) -> tensor<16xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [2] : (tensor<16xf32>) -> tensor<6x2x16xf32>
    %21 = stablehlo.add %18, %20 : tensor<6x2x16xf32>
    %22 = stablehlo.reshape %21 : (tensor<6x2x16xf32>) -> tensor<1x6x2x2x8xf32>
    %23 = stablehlo.transpose %22, dims = [3, 1, 2, 0, 4] {result_layout = dense<[4, 0, 2, 1, 3]> : tensor<5xindex>, xla_shape = "f32[2,6,2,1,8]{4,0,2,1,3}"} : (tensor<1x6x2x2x8xf32>) -> tensor<2x6x2x1x8xf32>
    %24 = stablehlo.reshape %23 : (tensor<2x6x2x1x8xf32>) -> tensor<2x6x2x8xf32>
    %25 = stablehlo.slice %24 [0:1, 0:6, 0:2, 0:8] : (tensor<2x6x2x8xf32>) -> tensor<1x6x2x8xf32>
    %26 = stablehlo.reshape %25 : (tensor<1x6x2x8xf32>) -> tensor<6x4x4xf32>
    %27 = stablehlo.transpose %26, dims = [1, 2, 0] : (tensor<6x4x4xf32>) -> tensor<4x4x6xf32>
    %28 = stablehlo.dot_general %12, %27, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x5x4xf32>, tensor<4x4x6xf32>) -> tensor<4x5x6xf32>
    %29 = stablehlo.reduce(%28 init: %cst_1) applies stablehlo.maximum across dimensions = [2] : (tensor<4x5x6xf32>, tensor<f32>) -> tensor<4x5xf32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [0, 1] : (tensor<4x5xf32>) -> tensor<4x5x6xf32>
    %31 = stablehlo.subtract %28, %30 : tensor<4x5x6xf32>
    %32 = stablehlo.exponential %31 : tensor<4x5x6xf32>
    %33 = stablehlo.reduce(%32 init: %cst_0) applies stablehlo.add across dimensions = [2] : (tensor<4x5x6xf32>, tensor<f32>) -> tensor<4x5xf32>
    %34 = stablehlo.broadcast_in_dim %33, dims = [0, 1] : (tensor<4x5xf32>) -> tensor<4x5x6xf32>
    %35 = stablehlo.divide %32, %34 : tensor<4x5x6xf32>
    %36 = stablehlo.slice %24 [1:2, 0:6, 0:2, 0:8] : (tensor<2x6x2x8xf32>) -> tensor<1x6x2x8xf32>
    %37 = stablehlo.reshape %36 : (tensor<1x6x2x8xf32>) -> tensor<6x4x4xf32>
    %38 = stablehlo.transpose %37, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[4,6,4]{2,0,1}"} : (tensor<6x4x4xf32>) -> tensor<4x6x4xf32>
    %39 = stablehlo.dot_general %35, %38, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x5x6xf32>, tensor<4x6x4xf32>) -> tensor<4x5x4xf32>
    %40 = stablehlo.transpose %39, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[5,4,4]{2,0,1}"} : (tensor<4x5x4xf32>) -> tensor<5x4x4xf32>
    %41 = stablehlo.reshape %40 : (tensor<5x4x4xf32>) -> tensor<10x8xf32>
    %42 = stablehlo.transpose %arg1, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[8,8]{0,1}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %43 = stablehlo.dot_general %41, %42, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<10x8xf32>, tensor<8x8xf32>) -> tensor<10x8xf32>
    %44 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<8xf32>) -> tensor<10x8xf32>
    %45 = stablehlo.add %43, %44 : tensor<10x8xf32>
    %46 = stablehlo.reshape %45 : (tensor<10x8xf32>) -> tensor<5x2x8xf32>
    %47 = stablehlo.transpose %46, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[2,5,8]{2,0,1}"} : (tensor<5x2x8xf32>) -> tensor<2x5x8xf32>
    %48 = stablehlo.reshape %35 : (tensor<4x5x6xf32>) -> tensor<2x2x5x6xf32>
    %49 = stablehlo.reduce(%48 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<2x2x5x6xf32>, tensor<f32>) -> tensor<2x5x6xf32>
    %50 = stablehlo.multiply %49, %cst : tensor<2x5x6xf32>
    return %47, %50 : tensor<2x5x8xf32>, tensor<2x5x6xf32>
  }
}
