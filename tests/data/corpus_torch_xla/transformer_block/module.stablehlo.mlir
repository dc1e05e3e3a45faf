module @IrToHlo.261 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<16xf32>, %arg1: tensor<16x32xf32>, %arg2: tensor<32xf32>, %arg3: tensor<32x16xf32>, %arg4: tensor<16xf32>, %arg5: tensor<16xf32>, %arg6: tensor<16x16xf32>, %arg7: tensor<48xf32>, %arg8: tensor<48x16xf32>, %arg9: tensor<16xf32>, %arg10: tensor<2x6x16xf32>, %arg11: tensor<16xf32>, %arg12: tensor<f32>, %arg13: tensor<f32>, %arg14: tensor<16xf32>) -> tensor<2x6x16xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<2x6x32xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<2x4x6x6xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<2x4x6x6xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<6x6xf32>
    %c = stablehlo.constant dense<false> : tensor<6x6xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<6x6xi1>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<12xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<12xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c_7 = stablehlo.constant dense<false> : tensor<i1>
    %c_8 = stablehlo.constant dense<true> : tensor<i1>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reshape %arg10 : (tensor<2x6x16xf32>) -> tensor<1x12x16xf32>
    %output, %batch_mean, %batch_var = "stablehlo.batch_norm_training"(%0, %cst_5, %cst_4) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<1x12x16xf32>, tensor<12xf32>, tensor<12xf32>) -> (tensor<1x12x16xf32>, tensor<12xf32>, tensor<12xf32>)
    %1 = stablehlo.broadcast_in_dim %arg11, dims = [2] : (tensor<16xf32>) -> tensor<2x6x16xf32>
    %2 = stablehlo.reshape %output : (tensor<1x12x16xf32>) -> tensor<2x6x16xf32>
    %3 = stablehlo.broadcast_in_dim %arg9, dims = [2] : (tensor<16xf32>) -> tensor<2x6x16xf32>
    %4 = stablehlo.multiply %2, %3 : tensor<2x6x16xf32>
    %5 = stablehlo.add %1, %4 : tensor<2x6x16xf32>
    %6 = stablehlo.transpose %5, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[6,2,16]{2,0,1}"} : (tensor<2x6x16xf32>) -> tensor<6x2x16xf32>
    %7 = stablehlo.reshape %6 : (tensor<6x2x16xf32>) -> tensor<12x16xf32>
    %8 = stablehlo.transpose %arg8, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[16,48]{0,1}"} : (tensor<48x16xf32>) -> tensor<16x48xf32>
    %9 = stablehlo.dot_general %7, %8, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<12x16xf32>, tensor<16x48xf32>) -> tensor<12x48xf32>
    %10 = stablehlo.reshape %9 : (tensor<12x48xf32>) -> tensor<6x2x48xf32>
    %11 = stablehlo.broadcast_in_dim %arg7, dims = [2] : (tensor<48xf32>) -> tensor<6x2x48xf32>
    %12 = stablehlo.add %10, %11 : tensor<6x2x48xf32>
    %13 = stablehlo.reshape %12 : (tensor<6x2x48xf32>) -> tensor<1x6x2x3x16xf32>
    %14 = stablehlo.transpose %13, dims = [3, 1, 2, 0, 4] {result_layout = dense<[4, 0, 2, 1, 3]> : tensor<5xindex>, xla_shape = "f32[3,6,2,1,16]{4,0,2,1,3}"} : (tensor<1x6x2x3x16xf32>) -> tensor<3x6x2x1x16xf32>
    %15 = stablehlo.reshape %14 : (tensor<3x6x2x1x16xf32>) -> tensor<3x6x2x16xf32>
    %16 = stablehlo.slice %15 [0:1, 0:6, 0:2, 0:16] : (tensor<3x6x2x16xf32>) -> tensor<1x6x2x16xf32>
    %17 = stablehlo.reshape %16 : (tensor<1x6x2x16xf32>) -> tensor<6x8x4xf32>
    %18 = stablehlo.transpose %17, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[8,6,4]{2,0,1}"} : (tensor<6x8x4xf32>) -> tensor<8x6x4xf32>
    %19 = stablehlo.reshape %18 : (tensor<8x6x4xf32>) -> tensor<2x4x6x4xf32>
    %20 = stablehlo.broadcast_in_dim %arg13, dims = [] : (tensor<f32>) -> tensor<2x4x6x4xf32>
    %21 = stablehlo.multiply %19, %20 : tensor<2x4x6x4xf32>
    %22 = stablehlo.reshape %21 : (tensor<2x4x6x4xf32>) -> tensor<8x6x4xf32>
    %23 = stablehlo.slice %15 [1:2, 0:6, 0:2, 0:16] : (tensor<3x6x2x16xf32>) -> tensor<1x6x2x16xf32>
    %24 = stablehlo.reshape %23 : (tensor<1x6x2x16xf32>) -> tensor<6x8x4xf32>
    %25 = stablehlo.transpose %24, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[8,6,4]{2,0,1}"} : (tensor<6x8x4xf32>) -> tensor<8x6x4xf32>
    %26 = stablehlo.reshape %25 : (tensor<8x6x4xf32>) -> tensor<2x4x6x4xf32>
    %27 = stablehlo.transpose %26, dims = [0, 1, 3, 2] {result_layout = dense<[2, 3, 1, 0]> : tensor<4xindex>, xla_shape = "f32[2,4,4,6]{2,3,1,0}"} : (tensor<2x4x6x4xf32>) -> tensor<2x4x4x6xf32>
    %28 = stablehlo.broadcast_in_dim %arg13, dims = [] : (tensor<f32>) -> tensor<2x4x4x6xf32>
    %29 = stablehlo.multiply %27, %28 : tensor<2x4x4x6xf32>
    %30 = stablehlo.reshape %29 : (tensor<2x4x4x6xf32>) -> tensor<8x4x6xf32>
    %31 = stablehlo.dot_general %22, %30, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x6x4xf32>, tensor<8x4x6xf32>) -> tensor<8x6x6xf32>
    %32 = stablehlo.reshape %31 : (tensor<8x6x6xf32>) -> tensor<2x4x6x6xf32>
    %33 = stablehlo.iota dim = 0 : tensor<6xi32>
    %34 = stablehlo.broadcast_in_dim %33, dims = [0] : (tensor<6xi32>) -> tensor<6x6xi32>
    %35 = stablehlo.broadcast_in_dim %33, dims = [1] : (tensor<6xi32>) -> tensor<6x6xi32>
    %36 = stablehlo.compare  GE, %34, %35 : (tensor<6x6xi32>, tensor<6x6xi32>) -> tensor<6x6xi1>
    %37 = stablehlo.select %36, %c_3, %c : tensor<6x6xi1>, tensor<6x6xi1>
    %38 = stablehlo.broadcast_in_dim %arg12, dims = [] : (tensor<f32>) -> tensor<6x6xf32>
    %39 = stablehlo.select %37, %cst_2, %38 : tensor<6x6xi1>, tensor<6x6xf32>
    %40 = stablehlo.broadcast_in_dim %39, dims = [2, 3] : (tensor<6x6xf32>) -> tensor<2x4x6x6xf32>
    %41 = stablehlo.add %32, %40 : tensor<2x4x6x6xf32>
    %42 = stablehlo.compare  EQ, %41, %cst_1 : (tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xi1>
    %43 = stablehlo.reduce(%42 init: %c_8) across dimensions = [3] : (tensor<2x4x6x6xi1>, tensor<i1>) -> tensor<2x4x6xi1>
     reducer(%arg15: tensor<i1>, %arg16: tensor<i1>)  {
      %88 = stablehlo.and %arg15, %arg16 : tensor<i1>
      %89 = stablehlo.select %88, %c_8, %c_7 : tensor<i1>, tensor<i1>
      stablehlo.return %89 : tensor<i1>
    }
    %44 = stablehlo.broadcast_in_dim %43, dims = [0, 1, 2] : (tensor<2x4x6xi1>) -> tensor<2x4x6x6xi1>
    %45 = stablehlo.reduce(%41 init: %cst_6) applies stablehlo.maximum across dimensions = [3] : (tensor<2x4x6x6xf32>, tensor<f32>) -> tensor<2x4x6xf32>
    %46 = stablehlo.broadcast_in_dim %45, dims = [0, 1, 2] : (tensor<2x4x6xf32>) -> tensor<2x4x6x6xf32>
    %47 = stablehlo.subtract %41, %46 : tensor<2x4x6x6xf32>
    %48 = stablehlo.exponential %47 : tensor<2x4x6x6xf32>
    %49 = stablehlo.reduce(%48 init: %cst_9) applies stablehlo.add across dimensions = [3] : (tensor<2x4x6x6xf32>, tensor<f32>) -> tensor<2x4x6xf32>
    %50 = stablehlo.broadcast_in_dim %49, dims = [0, 1, 2] : (tensor<2x4x6xf32>) -> tensor<2x4x6x6xf32>
    %51 = stablehlo.divide %48, %50 : tensor<2x4x6x6xf32>
    %52 = stablehlo.select %44, %cst_0, %51 : tensor<2x4x6x6xi1>, tensor<2x4x6x6xf32>
    %53 = stablehlo.reshape %52 : (tensor<2x4x6x6xf32>) -> tensor<8x6x6xf32>
    %54 = stablehlo.slice %15 [2:3, 0:6, 0:2, 0:16] : (tensor<3x6x2x16xf32>) -> tensor<1x6x2x16xf32>
    %55 = stablehlo.reshape %54 : (tensor<1x6x2x16xf32>) -> tensor<6x8x4xf32>
    %56 = stablehlo.transpose %55, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[8,6,4]{2,0,1}"} : (tensor<6x8x4xf32>) -> tensor<8x6x4xf32>
    %57 = stablehlo.dot_general %53, %56, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x6x6xf32>, tensor<8x6x4xf32>) -> tensor<8x6x4xf32>
    %58 = stablehlo.reshape %57 : (tensor<8x6x4xf32>) -> tensor<2x4x6x4xf32>
    %59 = stablehlo.transpose %58, dims = [2, 0, 1, 3] {result_layout = dense<[3, 0, 2, 1]> : tensor<4xindex>, xla_shape = "f32[6,2,4,4]{3,0,2,1}"} : (tensor<2x4x6x4xf32>) -> tensor<6x2x4x4xf32>
    %60 = stablehlo.reshape %59 : (tensor<6x2x4x4xf32>) -> tensor<12x16xf32>
    %61 = stablehlo.transpose %arg6, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[16,16]{0,1}"} : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %62 = stablehlo.dot_general %60, %61, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<12x16xf32>, tensor<16x16xf32>) -> tensor<12x16xf32>
    %63 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<16xf32>) -> tensor<12x16xf32>
    %64 = stablehlo.add %62, %63 : tensor<12x16xf32>
    %65 = stablehlo.reshape %64 : (tensor<12x16xf32>) -> tensor<6x2x16xf32>
    %66 = stablehlo.transpose %65, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[2,6,16]{2,0,1}"} : (tensor<6x2x16xf32>) -> tensor<2x6x16xf32>
    %67 = stablehlo.add %arg10, %66 : tensor<2x6x16xf32>
    %68 = stablehlo.reshape %67 : (tensor<2x6x16xf32>) -> tensor<1x12x16xf32>
    %output_10, %batch_mean_11, %batch_var_12 = "stablehlo.batch_norm_training"(%68, %cst_5, %cst_4) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<1x12x16xf32>, tensor<12xf32>, tensor<12xf32>) -> (tensor<1x12x16xf32>, tensor<12xf32>, tensor<12xf32>)
    %69 = stablehlo.broadcast_in_dim %arg14, dims = [2] : (tensor<16xf32>) -> tensor<2x6x16xf32>
    %70 = stablehlo.reshape %output_10 : (tensor<1x12x16xf32>) -> tensor<2x6x16xf32>
    %71 = stablehlo.broadcast_in_dim %arg4, dims = [2] : (tensor<16xf32>) -> tensor<2x6x16xf32>
    %72 = stablehlo.multiply %70, %71 : tensor<2x6x16xf32>
    %73 = stablehlo.add %69, %72 : tensor<2x6x16xf32>
    %74 = stablehlo.reshape %73 : (tensor<2x6x16xf32>) -> tensor<12x16xf32>
    %75 = stablehlo.transpose %arg3, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[16,32]{0,1}"} : (tensor<32x16xf32>) -> tensor<16x32xf32>
    %76 = stablehlo.dot_general %74, %75, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<12x16xf32>, tensor<16x32xf32>) -> tensor<12x32xf32>
    %77 = stablehlo.reshape %76 : (tensor<12x32xf32>) -> tensor<2x6x32xf32>
    %78 = stablehlo.broadcast_in_dim %arg2, dims = [2] : (tensor<32xf32>) -> tensor<2x6x32xf32>
    %79 = stablehlo.add %77, %78 : tensor<2x6x32xf32>
    %80 = stablehlo.maximum %79, %cst : tensor<2x6x32xf32>
    %81 = stablehlo.reshape %80 : (tensor<2x6x32xf32>) -> tensor<12x32xf32>
    %82 = stablehlo.transpose %arg1, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[32,16]{0,1}"} : (tensor<16x32xf32>) -> tensor<32x16xf32>
    %83 = stablehlo.dot_general %81, %82, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<12x32xf32>, tensor<32x16xf32>) -> tensor<12x16xf32>
    %84 = stablehlo.reshape %83 : (tensor<12x16xf32>) -> tensor<2x6x16xf32>
    %85 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<16xf32>) -> tensor<2x6x16xf32>
    %86 = stablehlo.add %84, %85 : tensor<2x6x16xf32>
    %87 = stablehlo.add %67, %86 : tensor<2x6x16xf32>
    return %87 : tensor<2x6x16xf32>
  }
}
