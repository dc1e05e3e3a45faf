module @IrToHlo.344 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<2x3x7x7xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x6x6xf32>, tensor<2x3x5x9xf32>, tensor<2x3x14x14xf32>) {
    %cst = stablehlo.constant dense<6.000000e+00> : tensor<14xf32>
    %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<14xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<14x1xf32>
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<9x3xf32>
    %cst_3 = stablehlo.constant dense<4.000000e+00> : tensor<9xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<9xf32>
    %cst_5 = stablehlo.constant dense<0.777777791> : tensor<9xf32>
    %cst_6 = stablehlo.constant dense<5.000000e-01> : tensor<9xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<9xf32>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<9x3xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<9x3xf32>
    %cst_10 = stablehlo.constant dense<5.000000e-01> : tensor<5x3xf32>
    %cst_11 = stablehlo.constant dense<4.000000e+00> : tensor<5xf32>
    %cst_12 = stablehlo.constant dense<1.000000e+00> : tensor<5xf32>
    %cst_13 = stablehlo.constant dense<1.400000e+00> : tensor<5xf32>
    %cst_14 = stablehlo.constant dense<5.000000e-01> : tensor<5xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<5xf32>
    %cst_16 = stablehlo.constant dense<1.000000e+00> : tensor<5x3xf32>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<5x3xf32>
    %cst_18 = stablehlo.constant dense<1.000000e+00> : tensor<9x9xf32>
    %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_20 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%arg0, %cst_20) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %67 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
      stablehlo.return %67 : tensor<f32>
    }) : (tensor<2x3x7x7xf32>, tensor<f32>) -> tensor<2x3x6x6xf32>
    %1 = stablehlo.pad %arg0, %cst_19, low = [0, 0, 1, 1], high = [0, 0, 1, 1], interior = [0, 0, 0, 0] : (tensor<2x3x7x7xf32>, tensor<f32>) -> tensor<2x3x9x9xf32>
    %2 = "stablehlo.reduce_window"(%1, %cst_19) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 1, 3, 3>, window_strides = array<i64: 1, 1, 2, 2>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %67 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %67 : tensor<f32>
    }) : (tensor<2x3x9x9xf32>, tensor<f32>) -> tensor<2x3x4x4xf32>
    %3 = "stablehlo.reduce_window"(%cst_18, %cst_19) <{base_dilations = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 2, 2>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %67 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %67 : tensor<f32>
    }) : (tensor<9x9xf32>, tensor<f32>) -> tensor<4x4xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [2, 3] : (tensor<4x4xf32>) -> tensor<2x3x4x4xf32>
    %5 = stablehlo.divide %2, %4 : tensor<2x3x4x4xf32>
    %6 = stablehlo.iota dim = 0 : tensor<5xf32>
    %7 = stablehlo.add %6, %cst_14 : tensor<5xf32>
    %8 = stablehlo.multiply %7, %cst_13 : tensor<5xf32>
    %9 = stablehlo.subtract %8, %cst_12 : tensor<5xf32>
    %10 = stablehlo.subtract %9, %cst_14 : tensor<5xf32>
    %11 = stablehlo.ceil %10 : tensor<5xf32>
    %12 = stablehlo.clamp %cst_15, %11, %cst_11 : tensor<5xf32>
    %13 = stablehlo.subtract %12, %8 : tensor<5xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0] : (tensor<5xf32>) -> tensor<5x3xf32>
    %15 = stablehlo.iota dim = 0 : tensor<3xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [1] : (tensor<3xf32>) -> tensor<5x3xf32>
    %17 = stablehlo.add %14, %16 : tensor<5x3xf32>
    %18 = stablehlo.add %17, %cst_10 : tensor<5x3xf32>
    %19 = stablehlo.abs %18 : tensor<5x3xf32>
    %20 = stablehlo.subtract %cst_16, %19 : tensor<5x3xf32>
    %21 = stablehlo.maximum %20, %cst_17 : tensor<5x3xf32>
    %22 = stablehlo.reduce(%21 init: %cst_19) applies stablehlo.add across dimensions = [1] : (tensor<5x3xf32>, tensor<f32>) -> tensor<5xf32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0] : (tensor<5xf32>) -> tensor<5x3xf32>
    %24 = stablehlo.divide %21, %23 : tensor<5x3xf32>
    %25 = stablehlo.iota dim = 0 : tensor<9xf32>
    %26 = stablehlo.add %25, %cst_6 : tensor<9xf32>
    %27 = stablehlo.multiply %26, %cst_5 : tensor<9xf32>
    %28 = stablehlo.subtract %27, %cst_4 : tensor<9xf32>
    %29 = stablehlo.subtract %28, %cst_6 : tensor<9xf32>
    %30 = stablehlo.ceil %29 : tensor<9xf32>
    %31 = stablehlo.clamp %cst_7, %30, %cst_3 : tensor<9xf32>
    %32 = stablehlo.subtract %31, %27 : tensor<9xf32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [0] : (tensor<9xf32>) -> tensor<9x3xf32>
    %34 = stablehlo.broadcast_in_dim %15, dims = [1] : (tensor<3xf32>) -> tensor<9x3xf32>
    %35 = stablehlo.add %33, %34 : tensor<9x3xf32>
    %36 = stablehlo.add %35, %cst_2 : tensor<9x3xf32>
    %37 = stablehlo.abs %36 : tensor<9x3xf32>
    %38 = stablehlo.subtract %cst_8, %37 : tensor<9x3xf32>
    %39 = stablehlo.maximum %38, %cst_9 : tensor<9x3xf32>
    %40 = stablehlo.reduce(%39 init: %cst_19) applies stablehlo.add across dimensions = [1] : (tensor<9x3xf32>, tensor<f32>) -> tensor<9xf32>
    %41 = stablehlo.broadcast_in_dim %40, dims = [0] : (tensor<9xf32>) -> tensor<9x3xf32>
    %42 = stablehlo.divide %39, %41 : tensor<9x3xf32>
    %43 = stablehlo.dot_general %24, %42, contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<5x3xf32>, tensor<9x3xf32>) -> tensor<5x3x9x3xf32>
    %44 = stablehlo.transpose %arg0, dims = [0, 3, 2, 1] {result_layout = dense<[1, 2, 3, 0]> : tensor<4xindex>, xla_shape = "f32[2,7,7,3]{1,2,3,0}"} : (tensor<2x3x7x7xf32>) -> tensor<2x7x7x3xf32>
    %45 = stablehlo.broadcast_in_dim %31, dims = [0] : (tensor<9xf32>) -> tensor<9x5x1xf32>
    %46 = stablehlo.broadcast_in_dim %12, dims = [1] : (tensor<5xf32>) -> tensor<9x5x1xf32>
    %47 = stablehlo.concatenate %45, %46, dim = 2 : (tensor<9x5x1xf32>, tensor<9x5x1xf32>) -> tensor<9x5x2xf32>
    %48 = stablehlo.convert %47 : (tensor<9x5x2xf32>) -> tensor<9x5x2xi32>
    %49 = "stablehlo.gather"(%44, %48) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1, 2, 3], start_index_map = [1, 2], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 2, 3, 3, 3>}> : (tensor<2x7x7x3xf32>, tensor<9x5x2xi32>) -> tensor<2x3x3x3x9x5xf32>
    %50 = stablehlo.dot_general %43, %49, batching_dims = [2, 0] x [4, 5], contracting_dims = [3, 1] x [1, 2], precision = [DEFAULT, DEFAULT] : (tensor<5x3x9x3xf32>, tensor<2x3x3x3x9x5xf32>) -> tensor<9x5x2x3xf32>
    %51 = stablehlo.transpose %50, dims = [2, 3, 1, 0] : (tensor<9x5x2x3xf32>) -> tensor<2x3x5x9xf32>
    %52 = stablehlo.reduce(%cst_1 init: %cst_19) applies stablehlo.add across dimensions = [1] : (tensor<14x1xf32>, tensor<f32>) -> tensor<14xf32>
    %53 = stablehlo.reshape %52 : (tensor<14xf32>) -> tensor<14x1xf32>
    %54 = stablehlo.divide %cst_1, %53 : tensor<14x1xf32>
    %55 = stablehlo.dot_general %54, %54, contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<14x1xf32>, tensor<14x1xf32>) -> tensor<14x1x14x1xf32>
    %56 = stablehlo.iota dim = 0 : tensor<14xf32>
    %57 = stablehlo.multiply %56, %cst_0 : tensor<14xf32>
    %58 = stablehlo.floor %57 : tensor<14xf32>
    %59 = stablehlo.minimum %58, %cst : tensor<14xf32>
    %60 = stablehlo.broadcast_in_dim %59, dims = [0] : (tensor<14xf32>) -> tensor<14x14x1xf32>
    %61 = stablehlo.broadcast_in_dim %59, dims = [1] : (tensor<14xf32>) -> tensor<14x14x1xf32>
    %62 = stablehlo.concatenate %60, %61, dim = 2 : (tensor<14x14x1xf32>, tensor<14x14x1xf32>) -> tensor<14x14x2xf32>
    %63 = stablehlo.convert %62 : (tensor<14x14x2xf32>) -> tensor<14x14x2xi32>
    %64 = "stablehlo.gather"(%44, %63) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1, 2, 3], start_index_map = [1, 2], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 2, 1, 1, 3>}> : (tensor<2x7x7x3xf32>, tensor<14x14x2xi32>) -> tensor<2x1x1x3x14x14xf32>
    %65 = stablehlo.dot_general %55, %64, batching_dims = [2, 0] x [4, 5], contracting_dims = [3, 1] x [1, 2], precision = [DEFAULT, DEFAULT] : (tensor<14x1x14x1xf32>, tensor<2x1x1x3x14x14xf32>) -> tensor<14x14x2x3xf32>
    %66 = stablehlo.transpose %65, dims = [2, 3, 1, 0] : (tensor<14x14x2x3xf32>) -> tensor<2x3x14x14xf32>
    return %5, %0, %51, %66 : tensor<2x3x4x4xf32>, tensor<2x3x6x6xf32>, tensor<2x3x5x9xf32>, tensor<2x3x14x14xf32>
  }
}
