module @IrToHlo.121 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<6xi64>, %arg1: tensor<i64>, %arg2: tensor<6x5xf32>, %arg3: tensor<f32>, %arg4: tensor<6x5xf32>, %arg5: tensor<i64>, %arg6: tensor<f64>) -> (tensor<6x5xf32>, tensor<6x3xf32>, tensor<6x3xf32>, tensor<6x5xf32>, tensor<4x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>, tensor<2x5xf32>) {
    %cst = stablehlo.constant dense<-1.000000e+00> : tensor<6x5xf32>
    %c = stablehlo.constant dense<0> : tensor<4x5xi64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<4x5xf32>
    %c_1 = stablehlo.constant dense<0> : tensor<6xi64>
    %0 = stablehlo.compare  LT, %arg0, %c_1 : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi1>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i64>) -> tensor<6xi64>
    %2 = stablehlo.add %arg0, %1 : tensor<6xi64>
    %3 = stablehlo.select %0, %2, %arg0 : tensor<6xi1>, tensor<6xi64>
    %4 = stablehlo.reshape %3 : (tensor<6xi64>) -> tensor<6x1xi64>
    %5 = "stablehlo.gather"(%arg2, %4) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 5>}> : (tensor<6x5xf32>, tensor<6x1xi64>) -> tensor<6x5xf32>
    %6 = stablehlo.slice %arg0 [0:3] : (tensor<6xi64>) -> tensor<3xi64>
    %7 = stablehlo.convert %6 : (tensor<3xi64>) -> tensor<3xui32>
    %8 = "stablehlo.gather"(%arg2, %7) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 6, 1>}> : (tensor<6x5xf32>, tensor<3xui32>) -> tensor<6x3xf32>
    %9 = stablehlo.iota dim = 0 : tensor<6xui32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0] : (tensor<6xui32>) -> tensor<6x3x1xui32>
    %11 = stablehlo.broadcast_in_dim %6, dims = [1] : (tensor<3xi64>) -> tensor<6x3xi64>
    %12 = stablehlo.convert %11 : (tensor<6x3xi64>) -> tensor<6x3xui32>
    %13 = stablehlo.reshape %12 : (tensor<6x3xui32>) -> tensor<6x3x1xui32>
    %14 = stablehlo.concatenate %10, %13, dim = 2 : (tensor<6x3x1xui32>, tensor<6x3x1xui32>) -> tensor<6x3x2xui32>
    %15 = "stablehlo.gather"(%arg2, %14) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<6x5xf32>, tensor<6x3x2xui32>) -> tensor<6x3xf32>
    %16 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %17 = "stablehlo.scatter"(%arg2, %4, %16) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      stablehlo.return %arg8 : tensor<f32>
    }) : (tensor<6x5xf32>, tensor<6x1xi64>, tensor<6x5xf32>) -> tensor<6x5xf32>
    %18 = stablehlo.slice %arg0 [0:4] : (tensor<6xi64>) -> tensor<4xi64>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0] : (tensor<4xi64>) -> tensor<4x5xi64>
    %20 = stablehlo.broadcast_in_dim %arg5, dims = [] : (tensor<i64>) -> tensor<4x5xi64>
    %21 = stablehlo.abs %20 : tensor<4x5xi64>
    %22 = stablehlo.remainder %19, %21 : tensor<4x5xi64>
    %23 = stablehlo.sign %22 : tensor<4x5xi64>
    %24 = stablehlo.sign %20 : tensor<4x5xi64>
    %25 = stablehlo.multiply %23, %24 : tensor<4x5xi64>
    %26 = stablehlo.compare  LT, %25, %c : (tensor<4x5xi64>, tensor<4x5xi64>) -> tensor<4x5xi1>
    %27 = stablehlo.convert %26 : (tensor<4x5xi1>) -> tensor<4x5xi64>
    %28 = stablehlo.multiply %20, %27 : tensor<4x5xi64>
    %29 = stablehlo.add %22, %28 : tensor<4x5xi64>
    %30 = stablehlo.reshape %29 : (tensor<4x5xi64>) -> tensor<4x5x1xi64>
    %31 = stablehlo.iota dim = 0 : tensor<5xi64>
    %32 = stablehlo.broadcast_in_dim %31, dims = [1] : (tensor<5xi64>) -> tensor<4x5x1xi64>
    %33 = stablehlo.concatenate %30, %32, dim = 2 : (tensor<4x5x1xi64>, tensor<4x5x1xi64>) -> tensor<4x5x2xi64>
    %34 = stablehlo.slice %arg4 [0:4, 0:5] : (tensor<6x5xf32>) -> tensor<4x5xf32>
    %35 = "stablehlo.scatter"(%cst_0, %33, %34) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %44 = stablehlo.add %arg7, %arg8 : tensor<f32>
      stablehlo.return %44 : tensor<f32>
    }) : (tensor<4x5xf32>, tensor<4x5x2xi64>, tensor<4x5xf32>) -> tensor<4x5xf32>
    %36 = stablehlo.convert %arg2 : (tensor<6x5xf32>) -> tensor<6x5xf64>
    %37 = stablehlo.broadcast_in_dim %arg6, dims = [] : (tensor<f64>) -> tensor<6x5xf64>
    %38 = stablehlo.compare  GT, %36, %37 : (tensor<6x5xf64>, tensor<6x5xf64>) -> tensor<6x5xi1>
    %39 = stablehlo.select %38, %cst, %arg2 : tensor<6x5xi1>, tensor<6x5xf32>
    %40 = stablehlo.slice %arg0 [0:2] : (tensor<6xi64>) -> tensor<2xi64>
    %41 = stablehlo.slice %arg4 [0:2, 0:5] : (tensor<6x5xf32>) -> tensor<2x5xf32>
    %42 = "stablehlo.scatter"(%arg2, %40, %41) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %44 = stablehlo.add %arg7, %arg8 : tensor<f32>
      stablehlo.return %44 : tensor<f32>
    }) : (tensor<6x5xf32>, tensor<2xi64>, tensor<2x5xf32>) -> tensor<6x5xf32>
    %43 = stablehlo.slice %arg2 [1:5:2, 0:5] : (tensor<6x5xf32>) -> tensor<2x5xf32>
    return %5, %8, %15, %17, %35, %39, %42, %43 : tensor<6x5xf32>, tensor<6x3xf32>, tensor<6x3xf32>, tensor<6x5xf32>, tensor<4x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>, tensor<2x5xf32>
  }
}
