module @cc attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3xf32> {tf.aliasing_output = 0 : i32}) -> (tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>) {
    %0:2 = stablehlo.custom_call @lapack_spotrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)
    %1 = stablehlo.custom_call @"my-target"(%0#0) {api_version = 2 : i32, backend_config = "some config", has_side_effect = true} : (tensor<3x3xf32>) -> tensor<3x3xf32>
    %2 = stablehlo.custom_call @Sort(%arg0) {called_computations = [@cmp]} : (tensor<3x3xf32>) -> tensor<3x3xf32>
    return %0#0, %1, %2 : tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>
  }
  func.func private @cmp(%arg0: tensor<f32>, %arg1: tensor<f32>) -> tensor<i1> {
    %0 = stablehlo.compare GT, %arg0, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    return %0 : tensor<i1>
  }
}
