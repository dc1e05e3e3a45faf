module @IrToHlo.243 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<16xf32>, %arg1: tensor<16x32xf32>, %arg2: tensor<32xf32>, %arg3: tensor<32x16xf32>, %arg4: tensor<16xf32>, %arg5: tensor<16xf32>, %arg6: tensor<16x16xf32>, %arg7: tensor<48xf32>, %arg8: tensor<48x16xf32>, %arg9: tensor<16xf32>, %arg10: tensor<2x6x16xf32>, %arg11: tensor<16xf32>, %arg12: tensor<i1>, %arg13: tensor<16xf32>) -> tensor<2x6x16xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<2x6x32xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<6x6xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<6x6xf32>
    %c = stablehlo.constant dense<0> : tensor<6x6xi64>
    %cst_2 = stablehlo.constant dense<0.707106769> : tensor<2x4x4x6xf32>
    %cst_3 = stablehlo.constant dense<0.707106769> : tensor<2x4x6x4xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<12xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<12xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c_7 = stablehlo.constant dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi64>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reshape %arg10 : (tensor<2x6x16xf32>) -> tensor<1x12x16xf32>
    %output, %batch_mean, %batch_var = "stablehlo.batch_norm_training"(%0, %cst_5, %cst_4) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<1x12x16xf32>, tensor<12xf32>, tensor<12xf32>) -> (tensor<1x12x16xf32>, tensor<12xf32>, tensor<12xf32>)
    %1 = stablehlo.broadcast_in_dim %arg11, dims = [2] : (tensor<16xf32>) -> tensor<2x6x16xf32>
    %2 = stablehlo.reshape %output : (tensor<1x12x16xf32>) -> tensor<2x6x16xf32>
    %3 = stablehlo.broadcast_in_dim %arg9, dims = [2] : (tensor<16xf32>) -> tensor<2x6x16xf32>
    %4 = stablehlo.multiply %2, %3 : tensor<2x6x16xf32>
    %5 = stablehlo.add %1, %4 : tensor<2x6x16xf32>
    %6 = stablehlo.transpose %5, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[6,2,16]{2,0,1}"} : (tensor<2x6x16xf32>) -> tensor<6x2x16xf32>
    %7 = stablehlo.transpose %arg8, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[16,48]{0,1}"} : (tensor<48x16xf32>) -> tensor<16x48xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [1, 2] : (tensor<16x48xf32>) -> tensor<6x16x48xf32>
    %9 = stablehlo.dot_general %6, %8, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x2x16xf32>, tensor<6x16x48xf32>) -> tensor<6x2x48xf32>
    %10 = stablehlo.broadcast_in_dim %arg7, dims = [2] : (tensor<48xf32>) -> tensor<6x2x48xf32>
    %11 = stablehlo.add %9, %10 : tensor<6x2x48xf32>
    %12 = stablehlo.reshape %11 : (tensor<6x2x48xf32>) -> tensor<1x6x2x3x16xf32>
    %13 = stablehlo.transpose %12, dims = [3, 1, 2, 0, 4] {result_layout = dense<[4, 0, 2, 1, 3]> : tensor<5xindex>, xla_shape = "f32[3,6,2,1,16]{4,0,2,1,3}"} : (tensor<1x6x2x3x16xf32>) -> tensor<3x6x2x1x16xf32>
    %14 = stablehlo.reshape %13 : (tensor<3x6x2x1x16xf32>) -> tensor<3x6x2x16xf32>
    %15 = stablehlo.slice %14 [0:1, 0:6, 0:2, 0:16] : (tensor<3x6x2x16xf32>) -> tensor<1x6x2x16xf32>
    %16 = stablehlo.reshape %15 : (tensor<1x6x2x16xf32>) -> tensor<6x8x4xf32>
    %17 = stablehlo.transpose %16, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[8,6,4]{2,0,1}"} : (tensor<6x8x4xf32>) -> tensor<8x6x4xf32>
    %18 = stablehlo.reshape %17 : (tensor<8x6x4xf32>) -> tensor<2x4x6x4xf32>
    %19 = stablehlo.multiply %18, %cst_3 : tensor<2x4x6x4xf32>
    %20 = stablehlo.reshape %19 : (tensor<2x4x6x4xf32>) -> tensor<8x6x4xf32>
    %21 = stablehlo.slice %14 [1:2, 0:6, 0:2, 0:16] : (tensor<3x6x2x16xf32>) -> tensor<1x6x2x16xf32>
    %22 = stablehlo.reshape %21 : (tensor<1x6x2x16xf32>) -> tensor<6x8x4xf32>
    %23 = stablehlo.transpose %22, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[8,6,4]{2,0,1}"} : (tensor<6x8x4xf32>) -> tensor<8x6x4xf32>
    %24 = stablehlo.reshape %23 : (tensor<8x6x4xf32>) -> tensor<2x4x6x4xf32>
    %25 = stablehlo.transpose %24, dims = [0, 1, 3, 2] {result_layout = dense<[2, 3, 1, 0]> : tensor<4xindex>, xla_shape = "f32[2,4,4,6]{2,3,1,0}"} : (tensor<2x4x6x4xf32>) -> tensor<2x4x4x6xf32>
    %26 = stablehlo.multiply %25, %cst_2 : tensor<2x4x4x6xf32>
    %27 = stablehlo.reshape %26 : (tensor<2x4x4x6xf32>) -> tensor<8x4x6xf32>
    %28 = stablehlo.dot_general %20, %27, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x6x4xf32>, tensor<8x4x6xf32>) -> tensor<8x6x6xf32>
    %29 = stablehlo.reshape %28 : (tensor<8x6x6xf32>) -> tensor<2x4x6x6xf32>
    %30 = stablehlo.broadcast_in_dim %c_7, dims = [1] : (tensor<6xi64>) -> tensor<6x6xi64>
    %31 = stablehlo.broadcast_in_dim %c_7, dims = [0] : (tensor<6xi64>) -> tensor<6x6xi64>
    %32 = stablehlo.subtract %30, %31 : tensor<6x6xi64>
    %33 = stablehlo.compare  LE, %32, %c : (tensor<6x6xi64>, tensor<6x6xi64>) -> tensor<6x6xi1>
    %34 = stablehlo.broadcast_in_dim %arg12, dims = [] : (tensor<i1>) -> tensor<6x6xi1>
    %35 = stablehlo.and %33, %34 : tensor<6x6xi1>
    %36 = stablehlo.select %35, %cst_1, %cst_0 : tensor<6x6xi1>, tensor<6x6xf32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [2, 3] : (tensor<6x6xf32>) -> tensor<2x4x6x6xf32>
    %38 = stablehlo.add %29, %37 : tensor<2x4x6x6xf32>
    %39 = stablehlo.reduce(%38 init: %cst_6) applies stablehlo.maximum across dimensions = [3] : (tensor<2x4x6x6xf32>, tensor<f32>) -> tensor<2x4x6xf32>
    %40 = stablehlo.broadcast_in_dim %39, dims = [0, 1, 2] : (tensor<2x4x6xf32>) -> tensor<2x4x6x6xf32>
    %41 = stablehlo.subtract %38, %40 : tensor<2x4x6x6xf32>
    %42 = stablehlo.exponential %41 : tensor<2x4x6x6xf32>
    %43 = stablehlo.reduce(%42 init: %cst_8) applies stablehlo.add across dimensions = [3] : (tensor<2x4x6x6xf32>, tensor<f32>) -> tensor<2x4x6xf32>
    %44 = stablehlo.broadcast_in_dim %43, dims = [0, 1, 2] : (tensor<2x4x6xf32>) -> tensor<2x4x6x6xf32>
    %45 = stablehlo.divide %42, %44 : tensor<2x4x6x6xf32>
    %46 = stablehlo.reshape %45 : (tensor<2x4x6x6xf32>) -> tensor<8x6x6xf32>
    %47 = stablehlo.slice %14 [2:3, 0:6, 0:2, 0:16] : (tensor<3x6x2x16xf32>) -> tensor<1x6x2x16xf32>
    %48 = stablehlo.reshape %47 : (tensor<1x6x2x16xf32>) -> tensor<6x8x4xf32>
    %49 = stablehlo.transpose %48, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[8,6,4]{2,0,1}"} : (tensor<6x8x4xf32>) -> tensor<8x6x4xf32>
    %50 = stablehlo.dot_general %46, %49, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x6x6xf32>, tensor<8x6x4xf32>) -> tensor<8x6x4xf32>
    %51 = stablehlo.reshape %50 : (tensor<8x6x4xf32>) -> tensor<2x4x6x4xf32>
    %52 = stablehlo.transpose %51, dims = [2, 0, 1, 3] {result_layout = dense<[3, 0, 2, 1]> : tensor<4xindex>, xla_shape = "f32[6,2,4,4]{3,0,2,1}"} : (tensor<2x4x6x4xf32>) -> tensor<6x2x4x4xf32>
    %53 = stablehlo.reshape %52 : (tensor<6x2x4x4xf32>) -> tensor<12x16xf32>
    %54 = stablehlo.transpose %arg6, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[16,16]{0,1}"} : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %55 = stablehlo.dot_general %53, %54, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<12x16xf32>, tensor<16x16xf32>) -> tensor<12x16xf32>
    %56 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<16xf32>) -> tensor<12x16xf32>
    %57 = stablehlo.add %55, %56 : tensor<12x16xf32>
    %58 = stablehlo.reshape %57 : (tensor<12x16xf32>) -> tensor<6x2x16xf32>
    %59 = stablehlo.transpose %58, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[2,6,16]{2,0,1}"} : (tensor<6x2x16xf32>) -> tensor<2x6x16xf32>
    %60 = stablehlo.add %arg10, %59 : tensor<2x6x16xf32>
    %61 = stablehlo.reshape %60 : (tensor<2x6x16xf32>) -> tensor<1x12x16xf32>
    %output_9, %batch_mean_10, %batch_var_11 = "stablehlo.batch_norm_training"(%61, %cst_5, %cst_4) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<1x12x16xf32>, tensor<12xf32>, tensor<12xf32>) -> (tensor<1x12x16xf32>, tensor<12xf32>, tensor<12xf32>)
    %62 = stablehlo.broadcast_in_dim %arg13, dims = [2] : (tensor<16xf32>) -> tensor<2x6x16xf32>
    %63 = stablehlo.reshape %output_9 : (tensor<1x12x16xf32>) -> tensor<2x6x16xf32>
    %64 = stablehlo.broadcast_in_dim %arg4, dims = [2] : (tensor<16xf32>) -> tensor<2x6x16xf32>
    %65 = stablehlo.multiply %63, %64 : tensor<2x6x16xf32>
    %66 = stablehlo.add %62, %65 : tensor<2x6x16xf32>
    %67 = stablehlo.reshape %66 : (tensor<2x6x16xf32>) -> tensor<12x16xf32>
    %68 = stablehlo.transpose %arg3, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[16,32]{0,1}"} : (tensor<32x16xf32>) -> tensor<16x32xf32>
    %69 = stablehlo.dot_general %67, %68, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<12x16xf32>, tensor<16x32xf32>) -> tensor<12x32xf32>
    %70 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<32xf32>) -> tensor<12x32xf32>
    %71 = stablehlo.add %69, %70 : tensor<12x32xf32>
    %72 = stablehlo.reshape %71 : (tensor<12x32xf32>) -> tensor<2x6x32xf32>
    %73 = stablehlo.maximum %72, %cst : tensor<2x6x32xf32>
    %74 = stablehlo.reshape %73 : (tensor<2x6x32xf32>) -> tensor<12x32xf32>
    %75 = stablehlo.transpose %arg1, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[32,16]{0,1}"} : (tensor<16x32xf32>) -> tensor<32x16xf32>
    %76 = stablehlo.dot_general %74, %75, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<12x32xf32>, tensor<32x16xf32>) -> tensor<12x16xf32>
    %77 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<16xf32>) -> tensor<12x16xf32>
    %78 = stablehlo.add %76, %77 : tensor<12x16xf32>
    %79 = stablehlo.reshape %78 : (tensor<12x16xf32>) -> tensor<2x6x16xf32>
    %80 = stablehlo.add %60, %79 : tensor<2x6x16xf32>
    return %80 : tensor<2x6x16xf32>
  }
}
