module @ops attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>, %arg2: tensor<i32>, %arg3: tensor<i1>, %arg4: tensor<2x3xf32>, %arg5: tensor<1x4x8xf32>, %arg6: tensor<2x4x3xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4x8xf32>
    %1 = stablehlo.compare GT, %arg0, %arg1, TOTALORDER : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    %2 = stablehlo.select %1, %arg0, %arg1 : tensor<4x8xi1>, tensor<4x8xf32>
    %3 = stablehlo.select %arg3, %arg0, %arg1 : tensor<i1>, tensor<4x8xf32>
    %4 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %5 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %6 = stablehlo.reshape %5 : (tensor<8x4xf32>) -> tensor<32xf32>
    %7 = stablehlo.slice %6 [1:9:2] : (tensor<32xf32>) -> tensor<4xf32>
    %8 = stablehlo.concatenate %7, %7, dim = 0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.pad %8, %cst, low = [1], high = [-1], interior = [1] : (tensor<8xf32>, tensor<f32>) -> tensor<15xf32>
    %10 = stablehlo.iota dim = 1 : tensor<3x4xi32>
    %11 = stablehlo.reverse %arg0, dims = [0] : tensor<4x8xf32>
    %12 = stablehlo.dot_general %arg0, %5, contracting_dims = [1] x [0], precision = [HIGH, DEFAULT] : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    %13 = stablehlo.dot %7, %7 : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
    %14 = stablehlo.reduce_precision %arg0, format = e5m10 : tensor<4x8xf32>
    %15 = stablehlo.cholesky %12, lower = true : tensor<4x4xf32>
    %16 = "stablehlo.triangular_solve"(%15, %12) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %17 = stablehlo.fft %arg0, type = RFFT, length = [8] : (tensor<4x8xf32>) -> tensor<4x5xcomplex<f32>>
    %18 = stablehlo.tuple %arg0, %arg2 : tuple<tensor<4x8xf32>, tensor<i32>>
    %19 = stablehlo.get_tuple_element %18[1] : (tuple<tensor<4x8xf32>, tensor<i32>>) -> tensor<i32>
    %20 = stablehlo.create_token : !stablehlo.token
    %21 = stablehlo.after_all %20, %20 : !stablehlo.token
    %22:2 = stablehlo.optimization_barrier %arg0, %arg2 : tensor<4x8xf32>, tensor<i32>
    %23 = stablehlo.clamp %13, %arg0, %13 : (tensor<f32>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %24 = stablehlo.dynamic_slice %arg0, %arg2, %arg2, sizes = [2, 3] : (tensor<4x8xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
    %25 = stablehlo.dynamic_update_slice %arg0, %arg4, %arg2, %arg2 : (tensor<4x8xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<4x8xf32>
    %26 = stablehlo.convert %arg0 : (tensor<4x8xf32>) -> tensor<4x8xbf16>
    %27 = stablehlo.bitcast_convert %arg0 : (tensor<4x8xf32>) -> tensor<4x8x2xbf16>
    %28 = stablehlo.real %17 : (tensor<4x5xcomplex<f32>>) -> tensor<4x5xf32>
    %29 = stablehlo.complex %28, %28 : tensor<4x5xcomplex<f32>>
    %30 = stablehlo.abs %29 : (tensor<4x5xcomplex<f32>>) -> tensor<4x5xf32>
    %c = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
    %31 = stablehlo.rng %13, %13, %c, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x4xf32>
    %c_0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
    %output_state, %output = stablehlo.rng_bit_generator %c_0, algorithm = PHILOX : (tensor<2x2xi32>) -> (tensor<2x2xi32>, tensor<4xui32>)
    %32 = stablehlo.broadcast %7, sizes = [2] : (tensor<4xf32>) -> tensor<2x4xf32>
    %33 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<4x8xf32>) -> tensor<i32>
    %34 = "stablehlo.map"(%arg0, %arg1) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %55 = stablehlo.multiply %arg7, %arg8 : tensor<f32>
      stablehlo.return %55 : tensor<f32>
    }) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %35:2 = stablehlo.reduce(%arg0 init: %13), (%arg0 init: %13) across dimensions = [1] : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
     reducer(%arg7: tensor<f32>, %arg9: tensor<f32>) (%arg8: tensor<f32>, %arg10: tensor<f32>)  {
      %55 = stablehlo.add %arg7, %arg9 : tensor<f32>
      %56 = stablehlo.maximum %arg8, %arg10 : tensor<f32>
      stablehlo.return %55, %56 : tensor<f32>, tensor<f32>
    }
    %36 = stablehlo.reduce(%arg0 init: %13) applies stablehlo.add across dimensions = [0] : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %37 = "stablehlo.if"(%arg3) ({
      stablehlo.return %arg0 : tensor<4x8xf32>
    }, {
      stablehlo.return %arg1 : tensor<4x8xf32>
    }) : (tensor<i1>) -> tensor<4x8xf32>
    %38:2 = stablehlo.while(%iterArg = %arg2, %iterArg_2 = %arg0) : tensor<i32>, tensor<4x8xf32> attributes {some.attr = 1 : i32}
    cond {
      %55 = stablehlo.compare LT, %iterArg, %arg2 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %55 : tensor<i1>
    } do {
      %55 = stablehlo.add %iterArg_2, %arg1 : tensor<4x8xf32>
      stablehlo.return %iterArg, %55 : tensor<i32>, tensor<4x8xf32>
    }
    %39 = stablehlo.convolution(%arg5, %arg6) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [3], pad = [[1, 2]], lhs_dilate = [2], rhs_dilate = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x8xf32>, tensor<2x4x3xf32>) -> tensor<1x2x6xf32>
    %40 = stablehlo.composite "my.double" %arg0 {composite_attributes = {factor = 2.000000e+00 : f32}, decomposition = @double, version = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %41 = stablehlo.custom_call @foo(%arg0) {api_version = 2 : i32, backend_config = "cfg", has_side_effect = true} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %42 = "stablehlo.reduce_window"(%arg0, %13) <{padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %55 = stablehlo.maximum %arg7, %arg8 : tensor<f32>
      stablehlo.return %55 : tensor<f32>
    }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<2x4xf32>
    %43 = "stablehlo.batch_norm_inference"(%arg0, %7, %7, %7, %7) <{epsilon = 1.000000e-03 : f32, feature_index = 0 : i64}> : (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x8xf32>
    %output_1, %batch_mean, %batch_var = "stablehlo.batch_norm_training"(%arg0, %7, %7) <{epsilon = 1.000000e-03 : f32, feature_index = 0 : i64}> : (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
    %44 = "stablehlo.case"(%arg2) ({
      stablehlo.return %arg0 : tensor<4x8xf32>
    }, {
      %55 = stablehlo.negate %arg1 : tensor<4x8xf32>
      stablehlo.return %55 : tensor<4x8xf32>
    }) : (tensor<i32>) -> tensor<4x8xf32>
    %45 = stablehlo.exponential %arg0 {result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<HIGHEST>>} : tensor<4x8xf32>
    %46 = chlo.broadcast_add %arg0, %7 {broadcast_dimensions = array<i64: 0>} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
    %47 = chlo.broadcast_multiply %arg0, %13 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %48 = chlo.broadcast_compare %arg0, %13 {comparison_direction = #chlo<comparison_direction LT>} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xi1>
    %49 = chlo.is_inf %arg0 : tensor<4x8xf32> -> tensor<4x8xi1>
    %50 = "chlo.constant_like"(%arg0) <{value = 1.000000e+00 : f32}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %values, %indices = chlo.top_k(%arg0, k = 3) : tensor<4x8xf32> -> (tensor<4x3xf32>, tensor<4x3xi32>)
    %51 = chlo.lgamma %arg0 : tensor<4x8xf32> -> tensor<4x8xf32>
    %52 = chlo.conj %29 : tensor<4x5xcomplex<f32>> -> tensor<4x5xcomplex<f32>>
    %53 = "stablehlo.sort"(%arg0) ({
    ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
      %55 = stablehlo.compare LT, %arg7, %arg8 : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %55 : tensor<i1>
    }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %54 = stablehlo.sine %arg0 : tensor<4x8xf32>
    return %0, %2 : tensor<4x8xf32>, tensor<4x8xf32>
  }
  func.func private @double(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}
