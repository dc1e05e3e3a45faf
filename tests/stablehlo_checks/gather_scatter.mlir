// gather and scatter; expected values worked out by hand.
func.func @gather() {
  %i = stablehlo.iota dim = 0 : tensor<12xi32>
  %m = stablehlo.reshape %i : (tensor<12xi32>) -> tensor<3x4xi32>
  %idx = stablehlo.constant dense<[[2], [0], [5]]> : tensor<3x1xi32>
  %rows = "stablehlo.gather"(%m, %idx) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}> : (tensor<3x4xi32>, tensor<3x1xi32>) -> tensor<3x4xi32>
  check.expect_eq_const %rows, dense<[[8, 9, 10, 11], [0, 1, 2, 3], [8, 9, 10, 11]]> : tensor<3x4xi32>
  %pts = stablehlo.constant dense<[[1, 3], [0, 0]]> : tensor<2x2xi32>
  %elems = "stablehlo.gather"(%m, %pts) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>}> : (tensor<3x4xi32>, tensor<2x2xi32>) -> tensor<2xi32>
  check.expect_eq_const %elems, dense<[7, 0]> : tensor<2xi32>
  func.return
}

// -----

func.func @scatter() {
  %base = stablehlo.constant dense<[1.0, 1.0, 1.0, 1.0, 1.0]> : tensor<5xf32>
  %idx = stablehlo.constant dense<[[1], [3], [1], [7]]> : tensor<4x1xi32>
  %upd = stablehlo.constant dense<[10.0, 20.0, 30.0, 40.0]> : tensor<4xf32>
  %add = "stablehlo.scatter"(%base, %idx, %upd) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) : (tensor<5xf32>, tensor<4x1xi32>, tensor<4xf32>) -> tensor<5xf32>
  check.expect_eq_const %add, dense<[1.0, 41.0, 1.0, 21.0, 1.0]> : tensor<5xf32>
  %rows = stablehlo.constant dense<[[0, 0, 0], [0, 0, 0]]> : tensor<2x3xi32>
  %ri = stablehlo.constant dense<[[1]]> : tensor<1x1xi32>
  %ru = stablehlo.constant dense<[[7, 8, 9]]> : tensor<1x3xi32>
  %set = "stablehlo.scatter"(%rows, %ri, %ru) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true}> ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      stablehlo.return %b : tensor<i32>
  }) : (tensor<2x3xi32>, tensor<1x1xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %set, dense<[[0, 0, 0], [7, 8, 9]]> : tensor<2x3xi32>
  func.return
}
