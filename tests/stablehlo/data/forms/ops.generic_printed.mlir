"builtin.module"() <{sym_name = "ops"}> ({
  "func.func"() <{function_type = (tensor<4x8xf32>, tensor<4x8xf32>, tensor<i32>, tensor<i1>, tensor<2x3xf32>, tensor<1x4x8xf32>, tensor<2x4x3xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>), sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg1: tensor<4x8xf32>, %arg2: tensor<4x8xf32>, %arg3: tensor<i32>, %arg4: tensor<i1>, %arg5: tensor<2x3xf32>, %arg6: tensor<1x4x8xf32>, %arg7: tensor<2x4x3xf32>):
    %1 = "stablehlo.add"(%arg1, %arg2) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %2 = "stablehlo.compare"(%arg1, %arg2) <{compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    %3 = "stablehlo.select"(%2, %arg1, %arg2) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %4 = "stablehlo.select"(%arg4, %arg1, %arg2) : (tensor<i1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %5 = "stablehlo.broadcast_in_dim"(%arg3) <{broadcast_dimensions = array<i64>}> : (tensor<i32>) -> tensor<3xi32>
    %6 = "stablehlo.transpose"(%arg1) <{permutation = array<i64: 1, 0>}> : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %7 = "stablehlo.reshape"(%6) : (tensor<8x4xf32>) -> tensor<32xf32>
    %8 = "stablehlo.slice"(%7) <{limit_indices = array<i64: 9>, start_indices = array<i64: 1>, strides = array<i64: 2>}> : (tensor<32xf32>) -> tensor<4xf32>
    %9 = "stablehlo.concatenate"(%8, %8) <{dimension = 0 : i64}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
    %10 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %11 = "stablehlo.pad"(%9, %10) <{edge_padding_high = array<i64: -1>, edge_padding_low = array<i64: 1>, interior_padding = array<i64: 1>}> : (tensor<8xf32>, tensor<f32>) -> tensor<15xf32>
    %12 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<3x4xi32>
    %13 = "stablehlo.reverse"(%arg1) <{dimensions = array<i64: 0>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %14 = "stablehlo.dot_general"(%arg1, %6) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGH>, #stablehlo<precision DEFAULT>]}> : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    %15 = "stablehlo.dot"(%8, %8) : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
    %16 = "stablehlo.reduce_precision"(%arg1) <{exponent_bits = 5 : i32, mantissa_bits = 10 : i32}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %17 = "stablehlo.cholesky"(%14) <{lower = true}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %18 = "stablehlo.triangular_solve"(%17, %14) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %19 = "stablehlo.fft"(%arg1) <{fft_length = array<i64: 8>, fft_type = #stablehlo<fft_type RFFT>}> : (tensor<4x8xf32>) -> tensor<4x5xcomplex<f32>>
    %20 = "stablehlo.tuple"(%arg1, %arg3) : (tensor<4x8xf32>, tensor<i32>) -> tuple<tensor<4x8xf32>, tensor<i32>>
    %21 = "stablehlo.get_tuple_element"(%20) <{index = 1 : i32}> : (tuple<tensor<4x8xf32>, tensor<i32>>) -> tensor<i32>
    %22 = "stablehlo.create_token"() : () -> !stablehlo.token
    %23 = "stablehlo.after_all"(%22, %22) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
    %24:2 = "stablehlo.optimization_barrier"(%arg1, %arg3) : (tensor<4x8xf32>, tensor<i32>) -> (tensor<4x8xf32>, tensor<i32>)
    %25 = "stablehlo.clamp"(%15, %arg1, %15) : (tensor<f32>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %26 = "stablehlo.dynamic_slice"(%arg1, %arg3, %arg3) <{slice_sizes = array<i64: 2, 3>}> : (tensor<4x8xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
    %27 = "stablehlo.dynamic_update_slice"(%arg1, %arg5, %arg3, %arg3) : (tensor<4x8xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<4x8xf32>
    %28 = "stablehlo.convert"(%arg1) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
    %29 = "stablehlo.bitcast_convert"(%arg1) : (tensor<4x8xf32>) -> tensor<4x8x2xbf16>
    %30 = "stablehlo.real"(%19) : (tensor<4x5xcomplex<f32>>) -> tensor<4x5xf32>
    %31 = "stablehlo.complex"(%30, %30) : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xcomplex<f32>>
    %32 = "stablehlo.abs"(%31) : (tensor<4x5xcomplex<f32>>) -> tensor<4x5xf32>
    %33 = "stablehlo.constant"() <{value = dense<[3, 4]> : tensor<2xi64>}> : () -> tensor<2xi64>
    %34 = "stablehlo.rng"(%15, %15, %33) <{rng_distribution = #stablehlo<rng_distribution NORMAL>}> : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x4xf32>
    %35 = "stablehlo.constant"() <{value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>}> : () -> tensor<2x2xi32>
    %36:2 = "stablehlo.rng_bit_generator"(%35) <{rng_algorithm = #stablehlo<rng_algorithm PHILOX>}> : (tensor<2x2xi32>) -> (tensor<2x2xi32>, tensor<4xui32>)
    %37 = "stablehlo.broadcast"(%8) <{broadcast_sizes = array<i64: 2>}> : (tensor<4xf32>) -> tensor<2x4xf32>
    %38 = "stablehlo.get_dimension_size"(%arg1) <{dimension = 1 : i64}> : (tensor<4x8xf32>) -> tensor<i32>
    %39 = "stablehlo.map"(%arg1, %arg2) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg22: tensor<f32>, %arg23: tensor<f32>):
      %70 = "stablehlo.multiply"(%arg22, %arg23) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%70) : (tensor<f32>) -> ()
    }) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %40:2 = "stablehlo.reduce"(%arg1, %arg1, %15, %15) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg18: tensor<f32>, %arg19: tensor<f32>, %arg20: tensor<f32>, %arg21: tensor<f32>):
      %68 = "stablehlo.add"(%arg18, %arg20) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %69 = "stablehlo.maximum"(%arg19, %arg21) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%68, %69) : (tensor<f32>, tensor<f32>) -> ()
    }) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
    %41 = "stablehlo.reduce"(%arg1, %15) <{dimensions = array<i64: 0>}> ({
    ^bb0(%arg16: tensor<f32>, %arg17: tensor<f32>):
      %67 = "stablehlo.add"(%arg16, %arg17) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%67) : (tensor<f32>) -> ()
    }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %42 = "stablehlo.if"(%arg4) ({
      "stablehlo.return"(%arg1) : (tensor<4x8xf32>) -> ()
    }, {
      "stablehlo.return"(%arg2) : (tensor<4x8xf32>) -> ()
    }) : (tensor<i1>) -> tensor<4x8xf32>
    %43:2 = "stablehlo.while"(%arg3, %arg1) ({
    ^bb0(%arg14: tensor<i32>, %arg15: tensor<4x8xf32>):
      %66 = "stablehlo.compare"(%arg14, %arg3) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%66) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg12: tensor<i32>, %arg13: tensor<4x8xf32>):
      %65 = "stablehlo.add"(%arg13, %arg2) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
      "stablehlo.return"(%arg12, %65) : (tensor<i32>, tensor<4x8xf32>) -> ()
    }) {some.attr = 1 : i32} : (tensor<i32>, tensor<4x8xf32>) -> (tensor<i32>, tensor<4x8xf32>)
    %44 = "stablehlo.convolution"(%arg6, %arg7) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, f, 0]x[o, i, 0]->[b, f, 0]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 2>, padding = dense<[[1, 2]]> : tensor<1x2xi64>, rhs_dilation = array<i64: 1>, window_strides = array<i64: 3>}> : (tensor<1x4x8xf32>, tensor<2x4x3xf32>) -> tensor<1x2x6xf32>
    %45 = "stablehlo.composite"(%arg1) <{composite_attributes = {factor = 2.000000e+00 : f32}, decomposition = @double, name = "my.double", version = 1 : i32}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %46 = "stablehlo.custom_call"(%arg1) <{api_version = 2 : i32, backend_config = "cfg", call_target_name = "foo", has_side_effect = true}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %47 = "stablehlo.reduce_window"(%arg1, %15) <{padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
    ^bb0(%arg10: tensor<f32>, %arg11: tensor<f32>):
      %64 = "stablehlo.maximum"(%arg10, %arg11) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%64) : (tensor<f32>) -> ()
    }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<2x4xf32>
    %48 = "stablehlo.batch_norm_inference"(%arg1, %8, %8, %8, %8) <{epsilon = 1.000000e-03 : f32, feature_index = 0 : i64}> : (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x8xf32>
    %49:3 = "stablehlo.batch_norm_training"(%arg1, %8, %8) <{epsilon = 1.000000e-03 : f32, feature_index = 0 : i64}> : (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
    %50 = "stablehlo.case"(%arg3) ({
      "stablehlo.return"(%arg1) : (tensor<4x8xf32>) -> ()
    }, {
      %63 = "stablehlo.negate"(%arg2) : (tensor<4x8xf32>) -> tensor<4x8xf32>
      "stablehlo.return"(%63) : (tensor<4x8xf32>) -> ()
    }) : (tensor<i32>) -> tensor<4x8xf32>
    %51 = "stablehlo.exponential"(%arg1) <{result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<HIGHEST>>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %52 = "chlo.broadcast_add"(%arg1, %8) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
    %53 = "chlo.broadcast_multiply"(%arg1, %15) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %54 = "chlo.broadcast_compare"(%arg1, %15) <{comparison_direction = #chlo<comparison_direction LT>}> : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xi1>
    %55 = "chlo.is_inf"(%arg1) : (tensor<4x8xf32>) -> tensor<4x8xi1>
    %56 = "chlo.constant_like"(%arg1) <{value = 1.000000e+00 : f32}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %57:2 = "chlo.top_k"(%arg1) <{k = 3 : i64}> : (tensor<4x8xf32>) -> (tensor<4x3xf32>, tensor<4x3xi32>)
    %58 = "chlo.lgamma"(%arg1) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %59 = "chlo.conj"(%31) : (tensor<4x5xcomplex<f32>>) -> tensor<4x5xcomplex<f32>>
    %60 = "stablehlo.sort"(%arg1) ({
    ^bb0(%arg8: tensor<f32>, %arg9: tensor<f32>):
      %62 = "stablehlo.compare"(%arg8, %arg9) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%62) : (tensor<i1>) -> ()
    }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %61 = "stablehlo.sine"(%arg1) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    "func.return"(%1, %3) : (tensor<4x8xf32>, tensor<4x8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x8xf32>) -> tensor<4x8xf32>, sym_name = "double", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4x8xf32>):
    %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    "func.return"(%0) : (tensor<4x8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
