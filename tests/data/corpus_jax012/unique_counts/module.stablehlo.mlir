module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32xf32>, %arg1: tensor<16xf32>) -> (tensor<16xi32> {jax.result_info = "result[0]"}, tensor<16xf32> {jax.result_info = "result[1]"}) {
    %0 = call @sort(%arg0) : (tensor<32xf32>) -> tensor<32xf32>
    %1 = call @searchsorted(%0, %arg1) : (tensor<32xf32>, tensor<16xf32>) -> tensor<16xi32>
    %2 = call @cummax(%arg1) : (tensor<16xf32>) -> tensor<16xf32>
    return %1, %2 : tensor<16xi32>, tensor<16xf32>
  }
  func.func private @sort(%arg0: tensor<32xf32>) -> tensor<32xf32> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %1 = stablehlo.compare EQ, %arg1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %2 = stablehlo.select %1, %cst_0, %arg1 : tensor<i1>, tensor<f32>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %4 = stablehlo.select %3, %cst_1, %2 : tensor<i1>, tensor<f32>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %5 = stablehlo.compare EQ, %arg2, %cst_2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %6 = stablehlo.select %5, %cst_3, %arg2 : tensor<i1>, tensor<f32>
      %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %8 = stablehlo.select %7, %cst_4, %6 : tensor<i1>, tensor<f32>
      %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %9 : tensor<i1>
    }) : (tensor<32xf32>) -> tensor<32xf32>
    return %0 : tensor<32xf32>
  }
  func.func private @searchsorted(%arg0: tensor<32xf32>, %arg1: tensor<16xf32>) -> tensor<16xi32> {
    %0 = call @_searchsorted_scan_impl(%arg0, %arg1) : (tensor<32xf32>, tensor<16xf32>) -> tensor<16xi32>
    return %0 : tensor<16xi32>
  }
  func.func private @_searchsorted_scan_impl(%arg0: tensor<32xf32>, %arg1: tensor<16xf32>) -> tensor<16xi32> {
    %0 = call @_searchsorted_scan_impl_0(%arg0, %arg1) : (tensor<32xf32>, tensor<16xf32>) -> tensor<16xi32>
    return %0 : tensor<16xi32>
  }
  func.func private @_searchsorted_scan_impl_0(%arg0: tensor<32xf32>, %arg1: tensor<16xf32>) -> tensor<16xi32> {
    %c = stablehlo.constant dense<0> : tensor<ui32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<16xui32>
    %c_0 = stablehlo.constant dense<32> : tensor<ui32>
    %1 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui32>) -> tensor<16xui32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %2:5 = stablehlo.while(%iterArg = %arg0, %iterArg_2 = %arg1, %iterArg_3 = %c_1, %iterArg_4 = %0, %iterArg_5 = %1) : tensor<32xf32>, tensor<16xf32>, tensor<i32>, tensor<16xui32>, tensor<16xui32>
    cond {
      %c_6 = stablehlo.constant dense<6> : tensor<i32>
      %4 = stablehlo.compare LT, %iterArg_3, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %4 : tensor<i1>
    } do {
      %4 = stablehlo.subtract %iterArg_5, %iterArg_4 : tensor<16xui32>
      %c_6 = stablehlo.constant dense<2> : tensor<i32>
      %5 = func.call @floor_divide(%4, %c_6) : (tensor<16xui32>, tensor<i32>) -> tensor<16xui32>
      %6 = stablehlo.add %iterArg_4, %5 : tensor<16xui32>
      %7 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<16xui32>) -> tensor<16x1xui32>
      %8 = "stablehlo.gather"(%iterArg, %7) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<32xf32>, tensor<16x1xui32>) -> tensor<16x1xf32>
      %9 = stablehlo.reshape %8 : (tensor<16x1xf32>) -> tensor<16xf32>
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %10 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %11 = stablehlo.compare EQ, %iterArg_2, %10, FLOAT : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xi1>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %12 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %13 = stablehlo.select %11, %12, %iterArg_2 : tensor<16xi1>, tensor<16xf32>
      %14 = stablehlo.compare NE, %iterArg_2, %iterArg_2, FLOAT : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xi1>
      %cst_8 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %15 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %16 = stablehlo.select %14, %15, %13 : tensor<16xi1>, tensor<16xf32>
      %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %17 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %18 = stablehlo.compare EQ, %9, %17, FLOAT : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xi1>
      %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %19 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %20 = stablehlo.select %18, %19, %9 : tensor<16xi1>, tensor<16xf32>
      %21 = stablehlo.compare NE, %9, %9, FLOAT : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xi1>
      %cst_11 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %22 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %23 = stablehlo.select %21, %22, %20 : tensor<16xi1>, tensor<16xf32>
      %24 = stablehlo.compare LE, %16, %23, TOTALORDER : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xi1>
      %25 = stablehlo.select %24, %iterArg_4, %6 : tensor<16xi1>, tensor<16xui32>
      %26 = stablehlo.select %24, %6, %iterArg_5 : tensor<16xi1>, tensor<16xui32>
      %c_12 = stablehlo.constant dense<1> : tensor<i32>
      %27 = stablehlo.add %iterArg_3, %c_12 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_2, %27, %25, %26 : tensor<32xf32>, tensor<16xf32>, tensor<i32>, tensor<16xui32>, tensor<16xui32>
    }
    %3 = stablehlo.convert %2#4 : (tensor<16xui32>) -> tensor<16xi32>
    return %3 : tensor<16xi32>
  }
  func.func private @floor_divide(%arg0: tensor<16xui32>, %arg1: tensor<i32>) -> tensor<16xui32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<ui32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<ui32>) -> tensor<16xui32>
    %2 = stablehlo.divide %arg0, %1 : tensor<16xui32>
    return %2 : tensor<16xui32>
  }
  func.func private @cummax(%arg0: tensor<16xf32>) -> tensor<16xf32> {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[15, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 16>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
    return %1 : tensor<16xf32>
  }
}
