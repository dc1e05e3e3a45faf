module @IrToHlo.942 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<2x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8xf32>, %arg3: tensor<8x16xf32>, %arg4: tensor<16xf32>, %arg5: tensor<16x8xf32>, %arg6: tensor<8xf32>, %arg7: tensor<8xf32>, %arg8: tensor<8x8xf32>, %arg9: tensor<24xf32>, %arg10: tensor<24x8xf32>, %arg11: tensor<2x4x8xf32>, %arg12: tensor<f32>, %arg13: tensor<8xf32>, %arg14: tensor<8xf32>, %arg15: tensor<f64>, %arg16: tensor<f32>, %arg17: tensor<f32>, %arg18: tensor<f64>, %arg19: tensor<f32>, %arg20: tensor<f32>, %arg21: tensor<f32>, %arg22: tensor<f32>) -> (tensor<f32>, tensor<24x8xf32>, tensor<24xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<24x8xf32>, tensor<24x8xf32>, tensor<24xf32>, tensor<24xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<8x16xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<16xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<16x8xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<8x8xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<24xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<3x4x2x8xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<24x8xf32>
    %cst_6 = stablehlo.constant dense<6.250000e-02> : tensor<2x8xf32>
    %cst_7 = stablehlo.constant dense<2.500000e-01> : tensor<2x8xf32>
    %cst_8 = stablehlo.constant dense<2.000000e+00> : tensor<2x8xf32>
    %cst_9 = stablehlo.constant dense<9.99999974E-6> : tensor<8xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<2x4x16xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<8xf32>
    %cst_12 = stablehlo.constant dense<1.000000e+00> : tensor<8xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<2x2x4x4xf32>
    %cst_14 = stablehlo.constant dense<0xFF800000> : tensor<2x2x4x4xf32>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %c_15 = stablehlo.constant dense<2> : tensor<i64>
    %cst_16 = stablehlo.constant dense<6.250000e-02> : tensor<f32>
    %c_17 = stablehlo.constant dense<1> : tensor<i64>
    %c_18 = stablehlo.constant dense<false> : tensor<i1>
    %c_19 = stablehlo.constant dense<true> : tensor<i1>
    %cst_20 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %arg13, dims = [2] : (tensor<8xf32>) -> tensor<2x4x8xf32>
    %1 = stablehlo.transpose %arg11, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[4,2,8]{2,0,1}"} : (tensor<2x4x8xf32>) -> tensor<4x2x8xf32>
    %2 = stablehlo.reshape %1 : (tensor<4x2x8xf32>) -> tensor<8x8xf32>
    %3 = stablehlo.transpose %arg10, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[8,24]{0,1}"} : (tensor<24x8xf32>) -> tensor<8x24xf32>
    %4 = stablehlo.dot_general %2, %3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x24xf32>) -> tensor<8x24xf32>
    %5 = stablehlo.reshape %4 : (tensor<8x24xf32>) -> tensor<4x2x24xf32>
    %6 = stablehlo.broadcast_in_dim %arg9, dims = [2] : (tensor<24xf32>) -> tensor<4x2x24xf32>
    %7 = stablehlo.add %5, %6 : tensor<4x2x24xf32>
    %8 = stablehlo.reshape %7 : (tensor<4x2x24xf32>) -> tensor<1x4x2x3x8xf32>
    %9 = stablehlo.transpose %8, dims = [3, 1, 2, 0, 4] {result_layout = dense<[4, 0, 2, 1, 3]> : tensor<5xindex>, xla_shape = "f32[3,4,2,1,8]{4,0,2,1,3}"} : (tensor<1x4x2x3x8xf32>) -> tensor<3x4x2x1x8xf32>
    %10 = stablehlo.reshape %9 : (tensor<3x4x2x1x8xf32>) -> tensor<3x4x2x8xf32>
    %11 = stablehlo.slice %10 [0:1, 0:4, 0:2, 0:8] : (tensor<3x4x2x8xf32>) -> tensor<1x4x2x8xf32>
    %12 = stablehlo.reshape %11 : (tensor<1x4x2x8xf32>) -> tensor<4x4x4xf32>
    %13 = stablehlo.transpose %12, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[4,4,4]{2,0,1}"} : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %14 = stablehlo.reshape %13 : (tensor<4x4x4xf32>) -> tensor<2x2x4x4xf32>
    %15 = stablehlo.broadcast_in_dim %arg12, dims = [] : (tensor<f32>) -> tensor<2x2x4x4xf32>
    %16 = stablehlo.multiply %14, %15 : tensor<2x2x4x4xf32>
    %17 = stablehlo.reshape %16 : (tensor<2x2x4x4xf32>) -> tensor<4x4x4xf32>
    %18 = stablehlo.slice %10 [1:2, 0:4, 0:2, 0:8] : (tensor<3x4x2x8xf32>) -> tensor<1x4x2x8xf32>
    %19 = stablehlo.reshape %18 : (tensor<1x4x2x8xf32>) -> tensor<4x4x4xf32>
    %20 = stablehlo.transpose %19, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[4,4,4]{2,0,1}"} : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %21 = stablehlo.reshape %20 : (tensor<4x4x4xf32>) -> tensor<2x2x4x4xf32>
    %22 = stablehlo.transpose %21, dims = [0, 1, 3, 2] {result_layout = dense<[2, 3, 1, 0]> : tensor<4xindex>, xla_shape = "f32[2,2,4,4]{2,3,1,0}"} : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    %23 = stablehlo.multiply %22, %15 : tensor<2x2x4x4xf32>
    %24 = stablehlo.reshape %23 : (tensor<2x2x4x4xf32>) -> tensor<4x4x4xf32>
    %25 = stablehlo.dot_general %17, %24, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x4x4xf32>, tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %26 = stablehlo.reshape %25 : (tensor<4x4x4xf32>) -> tensor<2x2x4x4xf32>
    %27 = stablehlo.compare  EQ, %26, %cst_14 : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xi1>
    %28 = stablehlo.reduce(%27 init: %c_19) across dimensions = [3] : (tensor<2x2x4x4xi1>, tensor<i1>) -> tensor<2x2x4xi1>
     reducer(%arg23: tensor<i1>, %arg24: tensor<i1>)  {
      %381 = stablehlo.and %arg23, %arg24 : tensor<i1>
      %382 = stablehlo.select %381, %c_19, %c_18 : tensor<i1>, tensor<i1>
      stablehlo.return %382 : tensor<i1>
    }
    %29 = stablehlo.broadcast_in_dim %28, dims = [0, 1, 2] : (tensor<2x2x4xi1>) -> tensor<2x2x4x4xi1>
    %30 = stablehlo.reduce(%26 init: %cst_20) applies stablehlo.maximum across dimensions = [3] : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4xf32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [0, 1, 2] : (tensor<2x2x4xf32>) -> tensor<2x2x4x4xf32>
    %32 = stablehlo.subtract %26, %31 : tensor<2x2x4x4xf32>
    %33 = stablehlo.exponential %32 : tensor<2x2x4x4xf32>
    %34 = stablehlo.reduce(%33 init: %cst_21) applies stablehlo.add across dimensions = [3] : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4xf32>
    %35 = stablehlo.broadcast_in_dim %34, dims = [0, 1, 2] : (tensor<2x2x4xf32>) -> tensor<2x2x4x4xf32>
    %36 = stablehlo.divide %33, %35 : tensor<2x2x4x4xf32>
    %37 = stablehlo.select %29, %cst_13, %36 : tensor<2x2x4x4xi1>, tensor<2x2x4x4xf32>
    %38 = stablehlo.reshape %37 : (tensor<2x2x4x4xf32>) -> tensor<4x4x4xf32>
    %39 = stablehlo.slice %10 [2:3, 0:4, 0:2, 0:8] : (tensor<3x4x2x8xf32>) -> tensor<1x4x2x8xf32>
    %40 = stablehlo.reshape %39 : (tensor<1x4x2x8xf32>) -> tensor<4x4x4xf32>
    %41 = stablehlo.transpose %40, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[4,4,4]{2,0,1}"} : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %42 = stablehlo.dot_general %38, %41, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x4x4xf32>, tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %43 = stablehlo.reshape %42 : (tensor<4x4x4xf32>) -> tensor<2x2x4x4xf32>
    %44 = stablehlo.transpose %43, dims = [2, 0, 1, 3] {result_layout = dense<[3, 0, 2, 1]> : tensor<4xindex>, xla_shape = "f32[4,2,2,4]{3,0,2,1}"} : (tensor<2x2x4x4xf32>) -> tensor<4x2x2x4xf32>
    %45 = stablehlo.reshape %44 : (tensor<4x2x2x4xf32>) -> tensor<8x8xf32>
    %46 = stablehlo.transpose %arg8, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[8,8]{0,1}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %47 = stablehlo.dot_general %45, %46, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %48 = stablehlo.broadcast_in_dim %arg7, dims = [1] : (tensor<8xf32>) -> tensor<8x8xf32>
    %49 = stablehlo.add %47, %48 : tensor<8x8xf32>
    %50 = stablehlo.reshape %49 : (tensor<8x8xf32>) -> tensor<4x2x8xf32>
    %51 = stablehlo.transpose %50, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[2,4,8]{2,0,1}"} : (tensor<4x2x8xf32>) -> tensor<2x4x8xf32>
    %52 = stablehlo.add %arg11, %51 : tensor<2x4x8xf32>
    %53 = stablehlo.reshape %52 : (tensor<2x4x8xf32>) -> tensor<1x8x8xf32>
    %output, %batch_mean, %batch_var = "stablehlo.batch_norm_training"(%53, %cst_12, %cst_11) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<1x8x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<1x8x8xf32>, tensor<8xf32>, tensor<8xf32>)
    %54 = stablehlo.reshape %output : (tensor<1x8x8xf32>) -> tensor<2x4x8xf32>
    %55 = stablehlo.broadcast_in_dim %arg6, dims = [2] : (tensor<8xf32>) -> tensor<2x4x8xf32>
    %56 = stablehlo.multiply %54, %55 : tensor<2x4x8xf32>
    %57 = stablehlo.add %0, %56 : tensor<2x4x8xf32>
    %58 = stablehlo.reshape %57 : (tensor<2x4x8xf32>) -> tensor<8x8xf32>
    %59 = stablehlo.transpose %arg5, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[8,16]{0,1}"} : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %60 = stablehlo.dot_general %58, %59, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %61 = stablehlo.reshape %60 : (tensor<8x16xf32>) -> tensor<2x4x16xf32>
    %62 = stablehlo.broadcast_in_dim %arg4, dims = [2] : (tensor<16xf32>) -> tensor<2x4x16xf32>
    %63 = stablehlo.add %61, %62 : tensor<2x4x16xf32>
    %64 = stablehlo.maximum %63, %cst_10 : tensor<2x4x16xf32>
    %65 = stablehlo.reshape %64 : (tensor<2x4x16xf32>) -> tensor<8x16xf32>
    %66 = stablehlo.transpose %arg3, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[16,8]{0,1}"} : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %67 = stablehlo.dot_general %65, %66, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
    %68 = stablehlo.reshape %67 : (tensor<8x8xf32>) -> tensor<2x4x8xf32>
    %69 = stablehlo.broadcast_in_dim %arg2, dims = [2] : (tensor<8xf32>) -> tensor<2x4x8xf32>
    %70 = stablehlo.add %68, %69 : tensor<2x4x8xf32>
    %71 = stablehlo.add %57, %70 : tensor<2x4x8xf32>
    %72 = stablehlo.reshape %71 : (tensor<2x4x8xf32>) -> tensor<1x8x8xf32>
    %output_22, %batch_mean_23, %batch_var_24 = "stablehlo.batch_norm_training"(%72, %cst_12, %cst_11) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<1x8x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<1x8x8xf32>, tensor<8xf32>, tensor<8xf32>)
    %73 = stablehlo.add %batch_var_24, %cst_9 : tensor<8xf32>
    %74 = stablehlo.rsqrt %73 : tensor<8xf32>
    %75 = stablehlo.divide %cst_12, %74 : tensor<8xf32>
    %76 = stablehlo.multiply %75, %75 : tensor<8xf32>
    %77 = stablehlo.subtract %76, %cst_9 : tensor<8xf32>
    %78 = stablehlo.broadcast_in_dim %arg14, dims = [2] : (tensor<8xf32>) -> tensor<2x4x8xf32>
    %79 = stablehlo.reshape %output_22 : (tensor<1x8x8xf32>) -> tensor<2x4x8xf32>
    %80 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<8xf32>) -> tensor<2x4x8xf32>
    %81 = stablehlo.multiply %79, %80 : tensor<2x4x8xf32>
    %82 = stablehlo.add %78, %81 : tensor<2x4x8xf32>
    %83 = stablehlo.reduce(%82 init: %cst_21) applies stablehlo.add across dimensions = [1] : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    %84 = stablehlo.multiply %83, %cst_7 : tensor<2x8xf32>
    %85 = stablehlo.subtract %84, %arg0 : tensor<2x8xf32>
    %86 = stablehlo.multiply %85, %cst_8 : tensor<2x8xf32>
    %87 = stablehlo.multiply %86, %cst_6 : tensor<2x8xf32>
    %88 = stablehlo.broadcast_in_dim %87, dims = [0, 2] : (tensor<2x8xf32>) -> tensor<2x4x8xf32>
    %89 = stablehlo.broadcast_in_dim %arg19, dims = [] : (tensor<f32>) -> tensor<2x4x8xf32>
    %90 = stablehlo.divide %88, %89 : tensor<2x4x8xf32>
    %91 = stablehlo.multiply %90, %80 : tensor<2x4x8xf32>
    %92 = stablehlo.reshape %91 : (tensor<2x4x8xf32>) -> tensor<1x8x8xf32>
    %grad_operand, %grad_scale, %grad_offset = "stablehlo.batch_norm_grad"(%72, %cst_12, %batch_mean_23, %77, %92) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<1x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<1x8x8xf32>) -> (tensor<1x8x8xf32>, tensor<8xf32>, tensor<8xf32>)
    %93 = stablehlo.add %batch_var, %cst_9 : tensor<8xf32>
    %94 = stablehlo.rsqrt %93 : tensor<8xf32>
    %95 = stablehlo.divide %cst_12, %94 : tensor<8xf32>
    %96 = stablehlo.multiply %95, %95 : tensor<8xf32>
    %97 = stablehlo.subtract %96, %cst_9 : tensor<8xf32>
    %98 = stablehlo.reshape %grad_operand : (tensor<1x8x8xf32>) -> tensor<2x4x8xf32>
    %99 = stablehlo.compare  GT, %64, %cst_10 : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xi1>
    %100 = stablehlo.reshape %grad_operand : (tensor<1x8x8xf32>) -> tensor<8x8xf32>
    %101 = stablehlo.dot_general %100, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %102 = stablehlo.reshape %101 : (tensor<8x16xf32>) -> tensor<2x4x16xf32>
    %103 = stablehlo.select %99, %102, %cst_10 : tensor<2x4x16xi1>, tensor<2x4x16xf32>
    %104 = stablehlo.reshape %103 : (tensor<2x4x16xf32>) -> tensor<8x16xf32>
    %105 = stablehlo.dot_general %104, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
    %106 = stablehlo.reshape %105 : (tensor<8x8xf32>) -> tensor<2x4x8xf32>
    %107 = stablehlo.add %98, %106 : tensor<2x4x8xf32>
    %108 = stablehlo.multiply %107, %55 : tensor<2x4x8xf32>
    %109 = stablehlo.reshape %108 : (tensor<2x4x8xf32>) -> tensor<1x8x8xf32>
    %grad_operand_25, %grad_scale_26, %grad_offset_27 = "stablehlo.batch_norm_grad"(%53, %cst_12, %batch_mean, %97, %109) <{epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64}> : (tensor<1x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<1x8x8xf32>) -> (tensor<1x8x8xf32>, tensor<8xf32>, tensor<8xf32>)
    %110 = stablehlo.multiply %85, %85 : tensor<2x8xf32>
    %111 = stablehlo.reduce(%110 init: %cst_21) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8xf32>, tensor<f32>) -> tensor<f32>
    %112 = stablehlo.multiply %111, %cst_16 : tensor<f32>
    %113 = stablehlo.broadcast_in_dim %arg22, dims = [] : (tensor<f32>) -> tensor<24x8xf32>
    %114 = stablehlo.multiply %arg10, %113 : tensor<24x8xf32>
    %115 = stablehlo.broadcast_in_dim %arg21, dims = [] : (tensor<f32>) -> tensor<24x8xf32>
    %116 = stablehlo.transpose %2, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[8,8]{0,1}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %117 = stablehlo.transpose %38, dims = [0, 2, 1] {result_layout = dense<[1, 2, 0]> : tensor<3xindex>, xla_shape = "f32[4,4,4]{1,2,0}"} : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %118 = stablehlo.reshape %grad_operand_25 : (tensor<1x8x8xf32>) -> tensor<2x4x8xf32>
    %119 = stablehlo.transpose %118, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[4,2,8]{2,0,1}"} : (tensor<2x4x8xf32>) -> tensor<4x2x8xf32>
    %120 = stablehlo.reshape %119 : (tensor<4x2x8xf32>) -> tensor<8x8xf32>
    %121 = stablehlo.dot_general %120, %arg8, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %122 = stablehlo.reshape %121 : (tensor<8x8xf32>) -> tensor<4x2x2x4xf32>
    %123 = stablehlo.transpose %122, dims = [1, 2, 0, 3] {result_layout = dense<[3, 1, 0, 2]> : tensor<4xindex>, xla_shape = "f32[2,2,4,4]{3,1,0,2}"} : (tensor<4x2x2x4xf32>) -> tensor<2x2x4x4xf32>
    %124 = stablehlo.reshape %123 : (tensor<2x2x4x4xf32>) -> tensor<4x4x4xf32>
    %125 = stablehlo.dot_general %117, %124, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x4x4xf32>, tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %126 = stablehlo.transpose %125, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[4,4,4]{2,0,1}"} : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %127 = stablehlo.reshape %126 : (tensor<4x4x4xf32>) -> tensor<1x4x2x8xf32>
    %128 = stablehlo.dynamic_update_slice %cst_4, %127, %c_15, %c, %c, %c : (tensor<3x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<3x4x2x8xf32>
    %129 = stablehlo.transpose %17, dims = [0, 2, 1] {result_layout = dense<[1, 2, 0]> : tensor<3xindex>, xla_shape = "f32[4,4,4]{1,2,0}"} : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %130 = stablehlo.transpose %40, dims = [1, 2, 0] : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %131 = stablehlo.dot_general %124, %130, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x4x4xf32>, tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %132 = stablehlo.reshape %131 : (tensor<4x4x4xf32>) -> tensor<2x2x4x4xf32>
    %133 = stablehlo.multiply %132, %37 : tensor<2x2x4x4xf32>
    %134 = stablehlo.reduce(%133 init: %cst_21) applies stablehlo.add across dimensions = [3] : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4xf32>
    %135 = stablehlo.broadcast_in_dim %134, dims = [0, 1, 2] : (tensor<2x2x4xf32>) -> tensor<2x2x4x4xf32>
    %136 = stablehlo.subtract %132, %135 : tensor<2x2x4x4xf32>
    %137 = stablehlo.multiply %37, %136 : tensor<2x2x4x4xf32>
    %138 = stablehlo.reshape %137 : (tensor<2x2x4x4xf32>) -> tensor<4x4x4xf32>
    %139 = stablehlo.dot_general %129, %138, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x4x4xf32>, tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %140 = stablehlo.reshape %139 : (tensor<4x4x4xf32>) -> tensor<2x2x4x4xf32>
    %141 = stablehlo.multiply %140, %15 : tensor<2x2x4x4xf32>
    %142 = stablehlo.transpose %141, dims = [0, 1, 3, 2] {result_layout = dense<[2, 3, 1, 0]> : tensor<4xindex>, xla_shape = "f32[2,2,4,4]{2,3,1,0}"} : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    %143 = stablehlo.reshape %142 : (tensor<2x2x4x4xf32>) -> tensor<4x4x4xf32>
    %144 = stablehlo.transpose %143, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[4,4,4]{2,0,1}"} : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %145 = stablehlo.reshape %144 : (tensor<4x4x4xf32>) -> tensor<1x4x2x8xf32>
    %146 = stablehlo.dynamic_update_slice %cst_4, %145, %c_17, %c, %c, %c : (tensor<3x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<3x4x2x8xf32>
    %147 = stablehlo.add %128, %146 : tensor<3x4x2x8xf32>
    %148 = stablehlo.transpose %24, dims = [0, 2, 1] {result_layout = dense<[1, 2, 0]> : tensor<3xindex>, xla_shape = "f32[4,4,4]{1,2,0}"} : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %149 = stablehlo.dot_general %138, %148, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x4x4xf32>, tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %150 = stablehlo.reshape %149 : (tensor<4x4x4xf32>) -> tensor<2x2x4x4xf32>
    %151 = stablehlo.multiply %150, %15 : tensor<2x2x4x4xf32>
    %152 = stablehlo.reshape %151 : (tensor<2x2x4x4xf32>) -> tensor<4x4x4xf32>
    %153 = stablehlo.transpose %152, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[4,4,4]{2,0,1}"} : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
    %154 = stablehlo.reshape %153 : (tensor<4x4x4xf32>) -> tensor<1x4x2x8xf32>
    %155 = stablehlo.dynamic_update_slice %cst_4, %154, %c, %c, %c, %c : (tensor<3x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<3x4x2x8xf32>
    %156 = stablehlo.add %147, %155 : tensor<3x4x2x8xf32>
    %157 = stablehlo.reshape %156 : (tensor<3x4x2x8xf32>) -> tensor<3x4x2x1x8xf32>
    %158 = stablehlo.transpose %157, dims = [3, 1, 2, 0, 4] {result_layout = dense<[4, 0, 2, 1, 3]> : tensor<5xindex>, xla_shape = "f32[1,4,2,3,8]{4,0,2,1,3}"} : (tensor<3x4x2x1x8xf32>) -> tensor<1x4x2x3x8xf32>
    %159 = stablehlo.reshape %158 : (tensor<1x4x2x3x8xf32>) -> tensor<4x2x24xf32>
    %160 = stablehlo.reshape %158 : (tensor<1x4x2x3x8xf32>) -> tensor<8x24xf32>
    %161 = stablehlo.dot_general %116, %160, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x24xf32>) -> tensor<8x24xf32>
    %162 = stablehlo.transpose %161, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[24,8]{0,1}"} : (tensor<8x24xf32>) -> tensor<24x8xf32>
    %163 = stablehlo.subtract %162, %cst_5 {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[24,8]{0,1}"} : tensor<24x8xf32>
    %164 = stablehlo.multiply %115, %163 : tensor<24x8xf32>
    %165 = stablehlo.broadcast_in_dim %arg20, dims = [] : (tensor<f32>) -> tensor<24x8xf32>
    %166 = stablehlo.multiply %165, %cst_5 : tensor<24x8xf32>
    %167 = stablehlo.multiply %162, %162 {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[24,8]{0,1}"} : tensor<24x8xf32>
    %168 = stablehlo.convert %arg18 : (tensor<f64>) -> tensor<f32>
    %169 = stablehlo.broadcast_in_dim %168, dims = [] : (tensor<f32>) -> tensor<24x8xf32>
    %170 = stablehlo.multiply %167, %169 : tensor<24x8xf32>
    %171 = stablehlo.add %166, %170 : tensor<24x8xf32>
    %172 = stablehlo.sqrt %171 : tensor<24x8xf32>
    %173 = stablehlo.broadcast_in_dim %arg17, dims = [] : (tensor<f32>) -> tensor<24x8xf32>
    %174 = stablehlo.divide %172, %173 : tensor<24x8xf32>
    %175 = stablehlo.broadcast_in_dim %arg16, dims = [] : (tensor<f32>) -> tensor<24x8xf32>
    %176 = stablehlo.add %174, %175 : tensor<24x8xf32>
    %177 = stablehlo.divide %164, %176 : tensor<24x8xf32>
    %178 = stablehlo.convert %arg15 : (tensor<f64>) -> tensor<f32>
    %179 = stablehlo.broadcast_in_dim %178, dims = [] : (tensor<f32>) -> tensor<24x8xf32>
    %180 = stablehlo.multiply %177, %179 : tensor<24x8xf32>
    %181 = stablehlo.add %114, %180 : tensor<24x8xf32>
    %182 = stablehlo.broadcast_in_dim %arg22, dims = [] : (tensor<f32>) -> tensor<24xf32>
    %183 = stablehlo.multiply %arg9, %182 : tensor<24xf32>
    %184 = stablehlo.broadcast_in_dim %arg21, dims = [] : (tensor<f32>) -> tensor<24xf32>
    %185 = stablehlo.reduce(%159 init: %cst_21) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x2x24xf32>, tensor<f32>) -> tensor<24xf32>
    %186 = stablehlo.subtract %185, %cst_3 : tensor<24xf32>
    %187 = stablehlo.multiply %184, %186 : tensor<24xf32>
    %188 = stablehlo.broadcast_in_dim %arg20, dims = [] : (tensor<f32>) -> tensor<24xf32>
    %189 = stablehlo.multiply %188, %cst_3 : tensor<24xf32>
    %190 = stablehlo.multiply %185, %185 : tensor<24xf32>
    %191 = stablehlo.broadcast_in_dim %168, dims = [] : (tensor<f32>) -> tensor<24xf32>
    %192 = stablehlo.multiply %190, %191 : tensor<24xf32>
    %193 = stablehlo.add %189, %192 : tensor<24xf32>
    %194 = stablehlo.sqrt %193 : tensor<24xf32>
    %195 = stablehlo.broadcast_in_dim %arg17, dims = [] : (tensor<f32>) -> tensor<24xf32>
    %196 = stablehlo.divide %194, %195 : tensor<24xf32>
    %197 = stablehlo.broadcast_in_dim %arg16, dims = [] : (tensor<f32>) -> tensor<24xf32>
    %198 = stablehlo.add %196, %197 : tensor<24xf32>
    %199 = stablehlo.divide %187, %198 : tensor<24xf32>
    %200 = stablehlo.broadcast_in_dim %178, dims = [] : (tensor<f32>) -> tensor<24xf32>
    %201 = stablehlo.multiply %199, %200 : tensor<24xf32>
    %202 = stablehlo.add %183, %201 : tensor<24xf32>
    %203 = stablehlo.broadcast_in_dim %arg22, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %204 = stablehlo.multiply %arg8, %203 : tensor<8x8xf32>
    %205 = stablehlo.broadcast_in_dim %arg21, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %206 = stablehlo.transpose %45, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[8,8]{0,1}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %207 = stablehlo.dot_general %206, %120, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %208 = stablehlo.transpose %207, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[8,8]{0,1}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %209 = stablehlo.subtract %208, %cst_2 {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[8,8]{0,1}"} : tensor<8x8xf32>
    %210 = stablehlo.multiply %205, %209 : tensor<8x8xf32>
    %211 = stablehlo.broadcast_in_dim %arg20, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %212 = stablehlo.multiply %211, %cst_2 : tensor<8x8xf32>
    %213 = stablehlo.multiply %208, %208 {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[8,8]{0,1}"} : tensor<8x8xf32>
    %214 = stablehlo.broadcast_in_dim %168, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %215 = stablehlo.multiply %213, %214 : tensor<8x8xf32>
    %216 = stablehlo.add %212, %215 : tensor<8x8xf32>
    %217 = stablehlo.sqrt %216 : tensor<8x8xf32>
    %218 = stablehlo.broadcast_in_dim %arg17, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %219 = stablehlo.divide %217, %218 : tensor<8x8xf32>
    %220 = stablehlo.broadcast_in_dim %arg16, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %221 = stablehlo.add %219, %220 : tensor<8x8xf32>
    %222 = stablehlo.divide %210, %221 : tensor<8x8xf32>
    %223 = stablehlo.broadcast_in_dim %178, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %224 = stablehlo.multiply %222, %223 : tensor<8x8xf32>
    %225 = stablehlo.add %204, %224 : tensor<8x8xf32>
    %226 = stablehlo.broadcast_in_dim %arg22, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %227 = stablehlo.multiply %arg7, %226 : tensor<8xf32>
    %228 = stablehlo.broadcast_in_dim %arg21, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %229 = stablehlo.reduce(%120 init: %cst_21) applies stablehlo.add across dimensions = [0] : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %230 = stablehlo.subtract %229, %cst_11 : tensor<8xf32>
    %231 = stablehlo.multiply %228, %230 : tensor<8xf32>
    %232 = stablehlo.broadcast_in_dim %arg20, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %233 = stablehlo.multiply %232, %cst_11 : tensor<8xf32>
    %234 = stablehlo.multiply %229, %229 : tensor<8xf32>
    %235 = stablehlo.broadcast_in_dim %168, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %236 = stablehlo.multiply %234, %235 : tensor<8xf32>
    %237 = stablehlo.add %233, %236 : tensor<8xf32>
    %238 = stablehlo.sqrt %237 : tensor<8xf32>
    %239 = stablehlo.broadcast_in_dim %arg17, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %240 = stablehlo.divide %238, %239 : tensor<8xf32>
    %241 = stablehlo.broadcast_in_dim %arg16, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %242 = stablehlo.add %240, %241 : tensor<8xf32>
    %243 = stablehlo.divide %231, %242 : tensor<8xf32>
    %244 = stablehlo.broadcast_in_dim %178, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %245 = stablehlo.multiply %243, %244 : tensor<8xf32>
    %246 = stablehlo.add %227, %245 : tensor<8xf32>
    %247 = stablehlo.broadcast_in_dim %arg22, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %248 = stablehlo.multiply %arg5, %247 : tensor<16x8xf32>
    %249 = stablehlo.broadcast_in_dim %arg21, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %250 = stablehlo.transpose %58, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[8,8]{0,1}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %251 = stablehlo.dot_general %250, %104, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %252 = stablehlo.transpose %251, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[16,8]{0,1}"} : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %253 = stablehlo.subtract %252, %cst_1 {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[16,8]{0,1}"} : tensor<16x8xf32>
    %254 = stablehlo.multiply %249, %253 : tensor<16x8xf32>
    %255 = stablehlo.broadcast_in_dim %arg20, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %256 = stablehlo.multiply %255, %cst_1 : tensor<16x8xf32>
    %257 = stablehlo.multiply %252, %252 {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[16,8]{0,1}"} : tensor<16x8xf32>
    %258 = stablehlo.broadcast_in_dim %168, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %259 = stablehlo.multiply %257, %258 : tensor<16x8xf32>
    %260 = stablehlo.add %256, %259 : tensor<16x8xf32>
    %261 = stablehlo.sqrt %260 : tensor<16x8xf32>
    %262 = stablehlo.broadcast_in_dim %arg17, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %263 = stablehlo.divide %261, %262 : tensor<16x8xf32>
    %264 = stablehlo.broadcast_in_dim %arg16, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %265 = stablehlo.add %263, %264 : tensor<16x8xf32>
    %266 = stablehlo.divide %254, %265 : tensor<16x8xf32>
    %267 = stablehlo.broadcast_in_dim %178, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %268 = stablehlo.multiply %266, %267 : tensor<16x8xf32>
    %269 = stablehlo.add %248, %268 : tensor<16x8xf32>
    %270 = stablehlo.broadcast_in_dim %arg22, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %271 = stablehlo.multiply %arg4, %270 : tensor<16xf32>
    %272 = stablehlo.broadcast_in_dim %arg21, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %273 = stablehlo.reduce(%103 init: %cst_21) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %274 = stablehlo.subtract %273, %cst_0 : tensor<16xf32>
    %275 = stablehlo.multiply %272, %274 : tensor<16xf32>
    %276 = stablehlo.broadcast_in_dim %arg20, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %277 = stablehlo.multiply %276, %cst_0 : tensor<16xf32>
    %278 = stablehlo.multiply %273, %273 : tensor<16xf32>
    %279 = stablehlo.broadcast_in_dim %168, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %280 = stablehlo.multiply %278, %279 : tensor<16xf32>
    %281 = stablehlo.add %277, %280 : tensor<16xf32>
    %282 = stablehlo.sqrt %281 : tensor<16xf32>
    %283 = stablehlo.broadcast_in_dim %arg17, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %284 = stablehlo.divide %282, %283 : tensor<16xf32>
    %285 = stablehlo.broadcast_in_dim %arg16, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %286 = stablehlo.add %284, %285 : tensor<16xf32>
    %287 = stablehlo.divide %275, %286 : tensor<16xf32>
    %288 = stablehlo.broadcast_in_dim %178, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %289 = stablehlo.multiply %287, %288 : tensor<16xf32>
    %290 = stablehlo.add %271, %289 : tensor<16xf32>
    %291 = stablehlo.broadcast_in_dim %arg22, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %292 = stablehlo.multiply %arg3, %291 : tensor<8x16xf32>
    %293 = stablehlo.broadcast_in_dim %arg21, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %294 = stablehlo.transpose %65, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[16,8]{0,1}"} : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %295 = stablehlo.dot_general %294, %100, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
    %296 = stablehlo.transpose %295, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[8,16]{0,1}"} : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %297 = stablehlo.subtract %296, %cst {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[8,16]{0,1}"} : tensor<8x16xf32>
    %298 = stablehlo.multiply %293, %297 : tensor<8x16xf32>
    %299 = stablehlo.broadcast_in_dim %arg20, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %300 = stablehlo.multiply %299, %cst : tensor<8x16xf32>
    %301 = stablehlo.multiply %296, %296 {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[8,16]{0,1}"} : tensor<8x16xf32>
    %302 = stablehlo.broadcast_in_dim %168, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %303 = stablehlo.multiply %301, %302 : tensor<8x16xf32>
    %304 = stablehlo.add %300, %303 : tensor<8x16xf32>
    %305 = stablehlo.sqrt %304 : tensor<8x16xf32>
    %306 = stablehlo.broadcast_in_dim %arg17, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %307 = stablehlo.divide %305, %306 : tensor<8x16xf32>
    %308 = stablehlo.broadcast_in_dim %arg16, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %309 = stablehlo.add %307, %308 : tensor<8x16xf32>
    %310 = stablehlo.divide %298, %309 : tensor<8x16xf32>
    %311 = stablehlo.broadcast_in_dim %178, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %312 = stablehlo.multiply %310, %311 : tensor<8x16xf32>
    %313 = stablehlo.add %292, %312 : tensor<8x16xf32>
    %314 = stablehlo.multiply %arg2, %226 : tensor<8xf32>
    %315 = stablehlo.reduce(%98 init: %cst_21) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %316 = stablehlo.subtract %315, %cst_11 : tensor<8xf32>
    %317 = stablehlo.multiply %228, %316 : tensor<8xf32>
    %318 = stablehlo.multiply %315, %315 : tensor<8xf32>
    %319 = stablehlo.multiply %318, %235 : tensor<8xf32>
    %320 = stablehlo.add %233, %319 : tensor<8xf32>
    %321 = stablehlo.sqrt %320 : tensor<8xf32>
    %322 = stablehlo.divide %321, %239 : tensor<8xf32>
    %323 = stablehlo.add %322, %241 : tensor<8xf32>
    %324 = stablehlo.divide %317, %323 : tensor<8xf32>
    %325 = stablehlo.multiply %324, %244 : tensor<8xf32>
    %326 = stablehlo.add %314, %325 : tensor<8xf32>
    %327 = stablehlo.multiply %arg6, %226 : tensor<8xf32>
    %328 = stablehlo.multiply %107, %54 : tensor<2x4x8xf32>
    %329 = stablehlo.reduce(%328 init: %cst_21) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %330 = stablehlo.subtract %329, %cst_11 : tensor<8xf32>
    %331 = stablehlo.multiply %228, %330 : tensor<8xf32>
    %332 = stablehlo.multiply %329, %329 : tensor<8xf32>
    %333 = stablehlo.multiply %332, %235 : tensor<8xf32>
    %334 = stablehlo.add %233, %333 : tensor<8xf32>
    %335 = stablehlo.sqrt %334 : tensor<8xf32>
    %336 = stablehlo.divide %335, %239 : tensor<8xf32>
    %337 = stablehlo.add %336, %241 : tensor<8xf32>
    %338 = stablehlo.divide %331, %337 : tensor<8xf32>
    %339 = stablehlo.multiply %338, %244 : tensor<8xf32>
    %340 = stablehlo.add %327, %339 : tensor<8xf32>
    %341 = stablehlo.multiply %arg13, %226 : tensor<8xf32>
    %342 = stablehlo.reduce(%107 init: %cst_21) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %343 = stablehlo.subtract %342, %cst_11 : tensor<8xf32>
    %344 = stablehlo.multiply %228, %343 : tensor<8xf32>
    %345 = stablehlo.multiply %342, %342 : tensor<8xf32>
    %346 = stablehlo.multiply %345, %235 : tensor<8xf32>
    %347 = stablehlo.add %233, %346 : tensor<8xf32>
    %348 = stablehlo.sqrt %347 : tensor<8xf32>
    %349 = stablehlo.divide %348, %239 : tensor<8xf32>
    %350 = stablehlo.add %349, %241 : tensor<8xf32>
    %351 = stablehlo.divide %344, %350 : tensor<8xf32>
    %352 = stablehlo.multiply %351, %244 : tensor<8xf32>
    %353 = stablehlo.add %341, %352 : tensor<8xf32>
    %354 = stablehlo.multiply %arg1, %226 : tensor<8xf32>
    %355 = stablehlo.multiply %90, %79 : tensor<2x4x8xf32>
    %356 = stablehlo.reduce(%355 init: %cst_21) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %357 = stablehlo.subtract %356, %cst_11 : tensor<8xf32>
    %358 = stablehlo.multiply %228, %357 : tensor<8xf32>
    %359 = stablehlo.multiply %356, %356 : tensor<8xf32>
    %360 = stablehlo.multiply %359, %235 : tensor<8xf32>
    %361 = stablehlo.add %233, %360 : tensor<8xf32>
    %362 = stablehlo.sqrt %361 : tensor<8xf32>
    %363 = stablehlo.divide %362, %239 : tensor<8xf32>
    %364 = stablehlo.add %363, %241 : tensor<8xf32>
    %365 = stablehlo.divide %358, %364 : tensor<8xf32>
    %366 = stablehlo.multiply %365, %244 : tensor<8xf32>
    %367 = stablehlo.add %354, %366 : tensor<8xf32>
    %368 = stablehlo.multiply %arg14, %226 : tensor<8xf32>
    %369 = stablehlo.reduce(%90 init: %cst_21) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %370 = stablehlo.subtract %369, %cst_11 : tensor<8xf32>
    %371 = stablehlo.multiply %228, %370 : tensor<8xf32>
    %372 = stablehlo.multiply %369, %369 : tensor<8xf32>
    %373 = stablehlo.multiply %372, %235 : tensor<8xf32>
    %374 = stablehlo.add %233, %373 : tensor<8xf32>
    %375 = stablehlo.sqrt %374 : tensor<8xf32>
    %376 = stablehlo.divide %375, %239 : tensor<8xf32>
    %377 = stablehlo.add %376, %241 : tensor<8xf32>
    %378 = stablehlo.divide %371, %377 : tensor<8xf32>
    %379 = stablehlo.multiply %378, %244 : tensor<8xf32>
    %380 = stablehlo.add %368, %379 : tensor<8xf32>
    return %112, %181, %202, %225, %246, %269, %290, %313, %326, %340, %353, %367, %380, %164, %171, %187, %193, %210, %216, %231, %237, %254, %260, %275, %281, %298, %304, %317, %320, %331, %334, %344, %347, %358, %361, %371, %374 : tensor<f32>, tensor<24x8xf32>, tensor<24xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<24x8xf32>, tensor<24x8xf32>, tensor<24xf32>, tensor<24xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  }
}
