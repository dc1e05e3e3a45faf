module @ops attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %i: tensor<i32>, %p: tensor<i1>, %t: tensor<2x3xf32>, %c3: tensor<1x4x8xf32>, %k: tensor<2x4x3xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
    %0 = "stablehlo.add"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %1 = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type TOTALORDER>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    %2 = "stablehlo.select"(%1, %a, %b) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %3 = "stablehlo.select"(%p, %a, %b) : (tensor<i1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %4 = "stablehlo.broadcast_in_dim"(%i) {broadcast_dimensions = array<i64>} : (tensor<i32>) -> tensor<3xi32>
    %5 = "stablehlo.transpose"(%a) {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %6 = "stablehlo.reshape"(%5) : (tensor<8x4xf32>) -> tensor<32xf32>
    %7 = "stablehlo.slice"(%6) {start_indices = array<i64: 1>, limit_indices = array<i64: 9>, strides = array<i64: 2>} : (tensor<32xf32>) -> tensor<4xf32>
    %8 = "stablehlo.concatenate"(%7, %7) {dimension = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
    %cz = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %9 = "stablehlo.pad"(%8, %cz) {edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: -1>, interior_padding = array<i64: 1>} : (tensor<8xf32>, tensor<f32>) -> tensor<15xf32>
    %10 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<3x4xi32>
    %11 = "stablehlo.reverse"(%a) {dimensions = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %12 = "stablehlo.dot_general"(%a, %5) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGH>, #stablehlo<precision DEFAULT>]} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    %13 = "stablehlo.dot"(%7, %7) : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
    %14 = "stablehlo.reduce_precision"(%a) {exponent_bits = 5 : i32, mantissa_bits = 10 : i32} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %15 = "stablehlo.cholesky"(%12) {lower = true} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %16 = "stablehlo.triangular_solve"(%15, %12) {left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %17 = "stablehlo.fft"(%a) {fft_type = #stablehlo<fft_type RFFT>, fft_length = array<i64: 8>} : (tensor<4x8xf32>) -> tensor<4x5xcomplex<f32>>
    %18 = "stablehlo.tuple"(%a, %i) : (tensor<4x8xf32>, tensor<i32>) -> tuple<tensor<4x8xf32>, tensor<i32>>
    %19 = "stablehlo.get_tuple_element"(%18) {index = 1 : i32} : (tuple<tensor<4x8xf32>, tensor<i32>>) -> tensor<i32>
    %20 = "stablehlo.create_token"() : () -> !stablehlo.token
    %21 = "stablehlo.after_all"(%20, %20) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
    %22:2 = "stablehlo.optimization_barrier"(%a, %i) : (tensor<4x8xf32>, tensor<i32>) -> (tensor<4x8xf32>, tensor<i32>)
    %23 = "stablehlo.clamp"(%13, %a, %13) : (tensor<f32>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %24 = "stablehlo.dynamic_slice"(%a, %i, %i) {slice_sizes = array<i64: 2, 3>} : (tensor<4x8xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
    %25 = "stablehlo.dynamic_update_slice"(%a, %t, %i, %i) : (tensor<4x8xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<4x8xf32>
    %26 = "stablehlo.convert"(%a) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
    %27 = "stablehlo.bitcast_convert"(%a) : (tensor<4x8xf32>) -> tensor<4x8x2xbf16>
    %28 = "stablehlo.real"(%17) : (tensor<4x5xcomplex<f32>>) -> tensor<4x5xf32>
    %29 = "stablehlo.complex"(%28, %28) : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xcomplex<f32>>
    %30 = "stablehlo.abs"(%29) : (tensor<4x5xcomplex<f32>>) -> tensor<4x5xf32>
    %rs = "stablehlo.constant"() {value = dense<[3, 4]> : tensor<2xi64>} : () -> tensor<2xi64>
    %31 = "stablehlo.rng"(%13, %13, %rs) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x4xf32>
    %32 = "stablehlo.constant"() {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
    %33:2 = "stablehlo.rng_bit_generator"(%32) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<2x2xi32>) -> (tensor<2x2xi32>, tensor<4xui32>)
    %34 = "stablehlo.broadcast"(%7) {broadcast_sizes = array<i64: 2>} : (tensor<4xf32>) -> tensor<2x4xf32>
    %35 = "stablehlo.get_dimension_size"(%a) {dimension = 1 : i64} : (tensor<4x8xf32>) -> tensor<i32>
    %36 = "stablehlo.map"(%a, %b) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %m = "stablehlo.multiply"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%m) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0, 1>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %37:2 = "stablehlo.reduce"(%a, %a, %13, %13) ({
    ^bb0(%x0: tensor<f32>, %x1: tensor<f32>, %y0: tensor<f32>, %y1: tensor<f32>):
      %s = "stablehlo.add"(%x0, %y0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %q = "stablehlo.maximum"(%x1, %y1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s, %q) : (tensor<f32>, tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
    %38 = "stablehlo.reduce"(%a, %13) ({
    ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
      %s = "stablehlo.add"(%x0, %y0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
    %39 = "stablehlo.if"(%p) ({
      "stablehlo.return"(%a) : (tensor<4x8xf32>) -> ()
    }, {
      "stablehlo.return"(%b) : (tensor<4x8xf32>) -> ()
    }) : (tensor<i1>) -> tensor<4x8xf32>
    %40:2 = "stablehlo.while"(%i, %a) ({
    ^bb0(%c: tensor<i32>, %v: tensor<4x8xf32>):
      %lt = "stablehlo.compare"(%c, %i) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%lt) : (tensor<i1>) -> ()
    }, {
    ^bb0(%c: tensor<i32>, %v: tensor<4x8xf32>):
      %n = "stablehlo.add"(%v, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
      "stablehlo.return"(%c, %n) : (tensor<i32>, tensor<4x8xf32>) -> ()
    }) {some.attr = 1 : i32} : (tensor<i32>, tensor<4x8xf32>) -> (tensor<i32>, tensor<4x8xf32>)
    %41 = "stablehlo.convolution"(%c3, %k) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, f, 0]x[o, i, 0]->[b, f, 0]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 2>, padding = dense<[[1, 2]]> : tensor<1x2xi64>, rhs_dilation = array<i64: 1>, window_strides = array<i64: 3>} : (tensor<1x4x8xf32>, tensor<2x4x3xf32>) -> tensor<1x2x6xf32>
    %42 = "stablehlo.composite"(%a) {name = "my.double", decomposition = @double, composite_attributes = {factor = 2.0 : f32}, version = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %43 = "stablehlo.custom_call"(%a) {call_target_name = "foo", backend_config = "cfg", api_version = 2 : i32, has_side_effect = true} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %44 = "stablehlo.reduce_window"(%a, %13) ({
    ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
      %s = "stablehlo.maximum"(%x0, %y0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>, padding = dense<0> : tensor<2x2xi64>} : (tensor<4x8xf32>, tensor<f32>) -> tensor<2x4xf32>
    %45 = "stablehlo.batch_norm_inference"(%a, %7, %7, %7, %7) {epsilon = 1.000000e-03 : f32, feature_index = 0 : i64} : (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x8xf32>
    %46:3 = "stablehlo.batch_norm_training"(%a, %7, %7) {epsilon = 1.000000e-03 : f32, feature_index = 0 : i64} : (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
    %47 = "stablehlo.case"(%i) ({
      "stablehlo.return"(%a) : (tensor<4x8xf32>) -> ()
    }, {
      %n = "stablehlo.negate"(%b) : (tensor<4x8xf32>) -> tensor<4x8xf32>
      "stablehlo.return"(%n) : (tensor<4x8xf32>) -> ()
    }) : (tensor<i32>) -> tensor<4x8xf32>
    %48 = "stablehlo.exponential"(%a) {result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<HIGHEST>>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %49 = "chlo.broadcast_add"(%a, %7) {broadcast_dimensions = array<i64: 0>} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
    %50 = "chlo.broadcast_multiply"(%a, %13) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %51 = "chlo.broadcast_compare"(%a, %13) {comparison_direction = #chlo<comparison_direction LT>} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xi1>
    %52 = "chlo.is_inf"(%a) : (tensor<4x8xf32>) -> tensor<4x8xi1>
    %53 = "chlo.constant_like"(%a) {value = 1.0 : f32} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %54:2 = "chlo.top_k"(%a) {k = 3 : i64} : (tensor<4x8xf32>) -> (tensor<4x3xf32>, tensor<4x3xi32>)
    %55 = "chlo.lgamma"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %56 = "chlo.conj"(%29) : (tensor<4x5xcomplex<f32>>) -> tensor<4x5xcomplex<f32>>
    %57 = "stablehlo.sort"(%a) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %lt = "stablehlo.compare"(%x, %y) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%lt) : (tensor<i1>) -> ()
    }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %58 = "stablehlo.sine"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    "func.return"(%0, %2) : (tensor<4x8xf32>, tensor<4x8xf32>) -> ()
  }
  func.func private @double(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = "stablehlo.add"(%x, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    "func.return"(%0) : (tensor<4x8xf32>) -> ()
  }
}
