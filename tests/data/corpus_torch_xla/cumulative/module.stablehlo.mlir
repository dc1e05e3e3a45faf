module @IrToHlo.59 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<5x7xf32>) -> (tensor<5x7xf32>, tensor<5x7xf32>, tensor<5x7xf32>, tensor<5x7xf32>, tensor<5x7xf32>) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.iota dim = 0 : tensor<7xi32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<7xi32>) -> tensor<5x7xi32>
    %2:2 = "stablehlo.reduce_window"(%arg0, %1, %cst_1, %c) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [6, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 7>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<i32>, %arg3: tensor<f32>, %arg4: tensor<i32>):
      %11 = stablehlo.compare  GE, %arg1, %arg3 : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %12 = stablehlo.select %11, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %13 = stablehlo.compare  EQ, %arg1, %arg3 : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %14 = stablehlo.minimum %arg2, %arg4 : tensor<i32>
      %15 = stablehlo.select %11, %arg2, %arg4 : tensor<i1>, tensor<i32>
      %16 = stablehlo.select %13, %14, %15 : tensor<i1>, tensor<i32>
      stablehlo.return %12, %16 : tensor<f32>, tensor<i32>
    }) : (tensor<5x7xf32>, tensor<5x7xi32>, tensor<f32>, tensor<i32>) -> (tensor<5x7xf32>, tensor<5x7xi32>)
    %3 = stablehlo.iota dim = 0 : tensor<5xi32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<5xi32>) -> tensor<5x7xi32>
    %5:2 = "stablehlo.reduce_window"(%arg0, %4, %cst_1, %c) <{base_dilations = array<i64: 1, 1>, padding = dense<[[4, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 5, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<i32>, %arg3: tensor<f32>, %arg4: tensor<i32>):
      %11 = stablehlo.compare  GE, %arg1, %arg3 : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %12 = stablehlo.select %11, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %13 = stablehlo.compare  EQ, %arg1, %arg3 : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %14 = stablehlo.minimum %arg2, %arg4 : tensor<i32>
      %15 = stablehlo.select %11, %arg2, %arg4 : tensor<i1>, tensor<i32>
      %16 = stablehlo.select %13, %14, %15 : tensor<i1>, tensor<i32>
      stablehlo.return %12, %16 : tensor<f32>, tensor<i32>
    }) : (tensor<5x7xf32>, tensor<5x7xi32>, tensor<f32>, tensor<i32>) -> (tensor<5x7xf32>, tensor<5x7xi32>)
    %6 = "stablehlo.reduce_window"(%arg0, %cst_0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[0, 0], [6, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 1, 7>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %11 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %11 : tensor<f32>
    }) : (tensor<5x7xf32>, tensor<f32>) -> tensor<5x7xf32>
    %7 = "stablehlo.reduce_window"(%arg0, %cst) <{base_dilations = array<i64: 1, 1>, padding = dense<[[4, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 5, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %11 = stablehlo.multiply %arg1, %arg2 : tensor<f32>
      stablehlo.return %11 : tensor<f32>
    }) : (tensor<5x7xf32>, tensor<f32>) -> tensor<5x7xf32>
    %8 = stablehlo.reverse %arg0, dims = [0] : tensor<5x7xf32>
    %9 = "stablehlo.reduce_window"(%8, %cst_0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[4, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 5, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %11 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %11 : tensor<f32>
    }) : (tensor<5x7xf32>, tensor<f32>) -> tensor<5x7xf32>
    %10 = stablehlo.reverse %9, dims = [0] : tensor<5x7xf32>
    return %6, %7, %10, %2#0, %5#0 : tensor<5x7xf32>, tensor<5x7xf32>, tensor<5x7xf32>, tensor<5x7xf32>, tensor<5x7xf32>
  }
}
