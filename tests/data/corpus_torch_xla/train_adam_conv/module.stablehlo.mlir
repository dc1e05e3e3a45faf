module @IrToHlo.297 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<5xi64>, %arg1: tensor<4xf32>, %arg2: tensor<4x48xf32>, %arg3: tensor<3xf32>, %arg4: tensor<3x1x3x3xf32>, %arg5: tensor<5x1x6x6xf32>, %arg6: tensor<f64>, %arg7: tensor<f32>, %arg8: tensor<f32>, %arg9: tensor<f64>, %arg10: tensor<f32>, %arg11: tensor<f32>) -> (tensor<f32>, tensor<3x1x3x3xf32>, tensor<3xf32>, tensor<4x48xf32>, tensor<4xf32>, tensor<3x1x3x3xf32>, tensor<3x1x3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4x48xf32>, tensor<4x48xf32>, tensor<4xf32>, tensor<4xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<4xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<4x48xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<3xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<3x1x3x3xf32>
    %c = stablehlo.constant dense<-100> : tensor<5xi64>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<5x4xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<5x4xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<5x3x4x4xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.convolution(%arg5, %arg4) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<5x1x6x6xf32>, tensor<3x1x3x3xf32>) -> tensor<5x3x4x4xf32>
    %1 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<3xf32>) -> tensor<5x3x4x4xf32>
    %2 = stablehlo.add %0, %1 : tensor<5x3x4x4xf32>
    %3 = stablehlo.maximum %2, %cst_5 : tensor<5x3x4x4xf32>
    %4 = stablehlo.compare  GT, %3, %cst_5 : (tensor<5x3x4x4xf32>, tensor<5x3x4x4xf32>) -> tensor<5x3x4x4xi1>
    %5 = stablehlo.broadcast_in_dim %arg0, dims = [0] : (tensor<5xi64>) -> tensor<5x4xi64>
    %6 = stablehlo.iota dim = 0 : tensor<4xi64>
    %7 = stablehlo.broadcast_in_dim %6, dims = [1] : (tensor<4xi64>) -> tensor<5x4xi64>
    %8 = stablehlo.compare  EQ, %5, %7 : (tensor<5x4xi64>, tensor<5x4xi64>) -> tensor<5x4xi1>
    %9 = stablehlo.select %8, %cst_4, %cst_3 : tensor<5x4xi1>, tensor<5x4xf32>
    %10 = stablehlo.negate %9 : tensor<5x4xf32>
    %11 = stablehlo.compare  NE, %arg0, %c : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi1>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<5xi1>) -> tensor<5x4xi1>
    %13 = stablehlo.select %12, %cst_4, %cst_3 : tensor<5x4xi1>, tensor<5x4xf32>
    %14 = stablehlo.multiply %13, %9 : tensor<5x4xf32>
    %15 = stablehlo.multiply %10, %14 : tensor<5x4xf32>
    %16 = stablehlo.reduce(%14 init: %cst_8) applies stablehlo.add across dimensions = [0, 1] : (tensor<5x4xf32>, tensor<f32>) -> tensor<f32>
    %17 = stablehlo.compare  NE, %16, %cst_8 : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %18 = stablehlo.select %17, %16, %cst_7 : tensor<i1>, tensor<f32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [] : (tensor<f32>) -> tensor<5x4xf32>
    %20 = stablehlo.divide %15, %19 : tensor<5x4xf32>
    %21 = stablehlo.reshape %3 : (tensor<5x3x4x4xf32>) -> tensor<5x48xf32>
    %22 = stablehlo.transpose %arg2, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[48,4]{0,1}"} : (tensor<4x48xf32>) -> tensor<48x4xf32>
    %23 = stablehlo.dot_general %21, %22, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x48xf32>, tensor<48x4xf32>) -> tensor<5x4xf32>
    %24 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xf32>) -> tensor<5x4xf32>
    %25 = stablehlo.add %23, %24 : tensor<5x4xf32>
    %26 = stablehlo.reduce(%25 init: %cst_6) applies stablehlo.maximum across dimensions = [1] : (tensor<5x4xf32>, tensor<f32>) -> tensor<5xf32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [0] : (tensor<5xf32>) -> tensor<5x4xf32>
    %28 = stablehlo.subtract %25, %27 : tensor<5x4xf32>
    %29 = stablehlo.exponential %28 : tensor<5x4xf32>
    %30 = stablehlo.reduce(%29 init: %cst_8) applies stablehlo.add across dimensions = [1] : (tensor<5x4xf32>, tensor<f32>) -> tensor<5xf32>
    %31 = stablehlo.log %30 : tensor<5xf32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [0] : (tensor<5xf32>) -> tensor<5x4xf32>
    %33 = stablehlo.subtract %28, %32 : tensor<5x4xf32>
    %34 = stablehlo.exponential %33 : tensor<5x4xf32>
    %35 = stablehlo.reduce(%20 init: %cst_8) applies stablehlo.add across dimensions = [1] : (tensor<5x4xf32>, tensor<f32>) -> tensor<5xf32>
    %36 = stablehlo.broadcast_in_dim %35, dims = [0] : (tensor<5xf32>) -> tensor<5x4xf32>
    %37 = stablehlo.multiply %34, %36 : tensor<5x4xf32>
    %38 = stablehlo.subtract %20, %37 : tensor<5x4xf32>
    %39 = stablehlo.dot_general %38, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x4xf32>, tensor<4x48xf32>) -> tensor<5x48xf32>
    %40 = stablehlo.reshape %39 : (tensor<5x48xf32>) -> tensor<5x3x4x4xf32>
    %41 = stablehlo.select %4, %40, %cst_5 : tensor<5x3x4x4xi1>, tensor<5x3x4x4xf32>
    %42 = stablehlo.compare  NE, %9, %cst_4 : (tensor<5x4xf32>, tensor<5x4xf32>) -> tensor<5x4xi1>
    %43 = stablehlo.multiply %10, %33 : tensor<5x4xf32>
    %44 = stablehlo.select %42, %cst_3, %43 : tensor<5x4xi1>, tensor<5x4xf32>
    %45 = stablehlo.multiply %44, %14 : tensor<5x4xf32>
    %46 = stablehlo.reduce(%45 init: %cst_8) applies stablehlo.add across dimensions = [0, 1] : (tensor<5x4xf32>, tensor<f32>) -> tensor<f32>
    %47 = stablehlo.divide %46, %16 : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %arg11, dims = [] : (tensor<f32>) -> tensor<3x1x3x3xf32>
    %49 = stablehlo.convolution(%arg5, %41) dim_numbers = [f, b, 0, 1]x[i, o, 0, 1]->[0, 1, b, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<5x1x6x6xf32>, tensor<5x3x4x4xf32>) -> tensor<3x3x1x3xf32>
    %50 = stablehlo.transpose %49, dims = [3, 2, 0, 1] {result_layout = dense<[0, 1, 3, 2]> : tensor<4xindex>, xla_shape = "f32[3,1,3,3]{0,1,3,2}"} : (tensor<3x3x1x3xf32>) -> tensor<3x1x3x3xf32>
    %51 = stablehlo.subtract %50, %cst_2 {result_layout = dense<[0, 1, 3, 2]> : tensor<4xindex>, xla_shape = "f32[3,1,3,3]{0,1,3,2}"} : tensor<3x1x3x3xf32>
    %52 = stablehlo.multiply %48, %51 : tensor<3x1x3x3xf32>
    %53 = stablehlo.broadcast_in_dim %arg10, dims = [] : (tensor<f32>) -> tensor<3x1x3x3xf32>
    %54 = stablehlo.multiply %53, %cst_2 : tensor<3x1x3x3xf32>
    %55 = stablehlo.multiply %50, %50 {result_layout = dense<[0, 1, 3, 2]> : tensor<4xindex>, xla_shape = "f32[3,1,3,3]{0,1,3,2}"} : tensor<3x1x3x3xf32>
    %56 = stablehlo.convert %arg9 : (tensor<f64>) -> tensor<f32>
    %57 = stablehlo.broadcast_in_dim %56, dims = [] : (tensor<f32>) -> tensor<3x1x3x3xf32>
    %58 = stablehlo.multiply %55, %57 : tensor<3x1x3x3xf32>
    %59 = stablehlo.add %54, %58 : tensor<3x1x3x3xf32>
    %60 = stablehlo.sqrt %59 : tensor<3x1x3x3xf32>
    %61 = stablehlo.broadcast_in_dim %arg8, dims = [] : (tensor<f32>) -> tensor<3x1x3x3xf32>
    %62 = stablehlo.divide %60, %61 : tensor<3x1x3x3xf32>
    %63 = stablehlo.broadcast_in_dim %arg7, dims = [] : (tensor<f32>) -> tensor<3x1x3x3xf32>
    %64 = stablehlo.add %62, %63 : tensor<3x1x3x3xf32>
    %65 = stablehlo.divide %52, %64 : tensor<3x1x3x3xf32>
    %66 = stablehlo.convert %arg6 : (tensor<f64>) -> tensor<f32>
    %67 = stablehlo.broadcast_in_dim %66, dims = [] : (tensor<f32>) -> tensor<3x1x3x3xf32>
    %68 = stablehlo.multiply %65, %67 : tensor<3x1x3x3xf32>
    %69 = stablehlo.add %arg4, %68 : tensor<3x1x3x3xf32>
    %70 = stablehlo.broadcast_in_dim %arg11, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %71 = stablehlo.reduce(%41 init: %cst_8) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<5x3x4x4xf32>, tensor<f32>) -> tensor<3xf32>
    %72 = stablehlo.subtract %71, %cst_1 : tensor<3xf32>
    %73 = stablehlo.multiply %70, %72 : tensor<3xf32>
    %74 = stablehlo.broadcast_in_dim %arg10, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %75 = stablehlo.multiply %74, %cst_1 : tensor<3xf32>
    %76 = stablehlo.multiply %71, %71 : tensor<3xf32>
    %77 = stablehlo.broadcast_in_dim %56, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %78 = stablehlo.multiply %76, %77 : tensor<3xf32>
    %79 = stablehlo.add %75, %78 : tensor<3xf32>
    %80 = stablehlo.sqrt %79 : tensor<3xf32>
    %81 = stablehlo.broadcast_in_dim %arg8, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %82 = stablehlo.divide %80, %81 : tensor<3xf32>
    %83 = stablehlo.broadcast_in_dim %arg7, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %84 = stablehlo.add %82, %83 : tensor<3xf32>
    %85 = stablehlo.divide %73, %84 : tensor<3xf32>
    %86 = stablehlo.broadcast_in_dim %66, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %87 = stablehlo.multiply %85, %86 : tensor<3xf32>
    %88 = stablehlo.add %arg3, %87 : tensor<3xf32>
    %89 = stablehlo.broadcast_in_dim %arg11, dims = [] : (tensor<f32>) -> tensor<4x48xf32>
    %90 = stablehlo.transpose %21, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[48,5]{0,1}"} : (tensor<5x48xf32>) -> tensor<48x5xf32>
    %91 = stablehlo.dot_general %90, %38, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<48x5xf32>, tensor<5x4xf32>) -> tensor<48x4xf32>
    %92 = stablehlo.transpose %91, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[4,48]{0,1}"} : (tensor<48x4xf32>) -> tensor<4x48xf32>
    %93 = stablehlo.subtract %92, %cst_0 {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[4,48]{0,1}"} : tensor<4x48xf32>
    %94 = stablehlo.multiply %89, %93 : tensor<4x48xf32>
    %95 = stablehlo.broadcast_in_dim %arg10, dims = [] : (tensor<f32>) -> tensor<4x48xf32>
    %96 = stablehlo.multiply %95, %cst_0 : tensor<4x48xf32>
    %97 = stablehlo.multiply %92, %92 {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[4,48]{0,1}"} : tensor<4x48xf32>
    %98 = stablehlo.broadcast_in_dim %56, dims = [] : (tensor<f32>) -> tensor<4x48xf32>
    %99 = stablehlo.multiply %97, %98 : tensor<4x48xf32>
    %100 = stablehlo.add %96, %99 : tensor<4x48xf32>
    %101 = stablehlo.sqrt %100 : tensor<4x48xf32>
    %102 = stablehlo.broadcast_in_dim %arg8, dims = [] : (tensor<f32>) -> tensor<4x48xf32>
    %103 = stablehlo.divide %101, %102 : tensor<4x48xf32>
    %104 = stablehlo.broadcast_in_dim %arg7, dims = [] : (tensor<f32>) -> tensor<4x48xf32>
    %105 = stablehlo.add %103, %104 : tensor<4x48xf32>
    %106 = stablehlo.divide %94, %105 : tensor<4x48xf32>
    %107 = stablehlo.broadcast_in_dim %66, dims = [] : (tensor<f32>) -> tensor<4x48xf32>
    %108 = stablehlo.multiply %106, %107 : tensor<4x48xf32>
    %109 = stablehlo.add %arg2, %108 : tensor<4x48xf32>
    %110 = stablehlo.broadcast_in_dim %arg11, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %111 = stablehlo.reduce(%38 init: %cst_8) applies stablehlo.add across dimensions = [0] : (tensor<5x4xf32>, tensor<f32>) -> tensor<4xf32>
    %112 = stablehlo.subtract %111, %cst : tensor<4xf32>
    %113 = stablehlo.multiply %110, %112 : tensor<4xf32>
    %114 = stablehlo.broadcast_in_dim %arg10, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %115 = stablehlo.multiply %114, %cst : tensor<4xf32>
    %116 = stablehlo.multiply %111, %111 : tensor<4xf32>
    %117 = stablehlo.broadcast_in_dim %56, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %118 = stablehlo.multiply %116, %117 : tensor<4xf32>
    %119 = stablehlo.add %115, %118 : tensor<4xf32>
    %120 = stablehlo.sqrt %119 : tensor<4xf32>
    %121 = stablehlo.broadcast_in_dim %arg8, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %122 = stablehlo.divide %120, %121 : tensor<4xf32>
    %123 = stablehlo.broadcast_in_dim %arg7, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %124 = stablehlo.add %122, %123 : tensor<4xf32>
    %125 = stablehlo.divide %113, %124 : tensor<4xf32>
    %126 = stablehlo.broadcast_in_dim %66, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %127 = stablehlo.multiply %125, %126 : tensor<4xf32>
    %128 = stablehlo.add %arg1, %127 : tensor<4xf32>
    return %47, %69, %88, %109, %128, %52, %59, %73, %79, %94, %100, %113, %119 : tensor<f32>, tensor<3x1x3x3xf32>, tensor<3xf32>, tensor<4x48xf32>, tensor<4xf32>, tensor<3x1x3x3xf32>, tensor<3x1x3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4x48xf32>, tensor<4x48xf32>, tensor<4xf32>, tensor<4xf32>
  }
}
