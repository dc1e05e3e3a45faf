module @jit_conv attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["a"=2, "b"=2]> {stablehlo.mesh = {axes = [{name = "a", size = 2 : i64}, {name = "b", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<4x5x5x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}, {}, {}]>}, %arg1: tensor<3x3x3x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {"b"}]>}) -> (tensor<4x5x5x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x5x5x3xf32>, tensor<3x3x3x4xf32>) -> tensor<4x5x5x4xf32>
    return %0 : tensor<4x5x5x4xf32>
  }
}
