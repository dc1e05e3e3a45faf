module @jit_collectives attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<16x8xf32>) -> (tensor<16x8xf32> {jax.result_info = "result[0]"}, tensor<64x8xf32> {jax.result_info = "result[1]"}, tensor<4x8xf32> {jax.result_info = "result[2]"}, tensor<16x8xf32> {jax.result_info = "result[3]"}, tensor<16x8xf32> {jax.result_info = "result[4]"}, tensor<16x8xf32> {jax.result_info = "result[5]"}) {
    %0:6 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<4x8xf32>) {
      %c = stablehlo.constant dense<1> : tensor<ui32>
      %c_0 = stablehlo.constant dense<4> : tensor<ui32>
      %1 = stablehlo.partition_id : tensor<ui32>
      %2 = stablehlo.divide %1, %c : tensor<ui32>
      %3 = stablehlo.remainder %2, %c_0 : tensor<ui32>
      %4 = stablehlo.convert %3 : (tensor<ui32>) -> tensor<i32>
      %5 = stablehlo.convert %4 : (tensor<i32>) -> tensor<f32>
      %6 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %16 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %16 : tensor<f32>
      }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %7 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<4x8xf32>) -> tensor<1x4x8xf32>
      %8 = "stablehlo.all_gather"(%7) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<1x4x8xf32>) -> tensor<4x4x8xf32>
      %9 = stablehlo.reshape %8 : (tensor<4x4x8xf32>) -> tensor<16x8xf32>
      %10 = "stablehlo.reduce_scatter"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %16 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %16 : tensor<f32>
      }) : (tensor<4x8xf32>) -> tensor<1x8xf32>
      %11 = "stablehlo.collective_permute"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %12 = "stablehlo.all_to_all"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, split_count = 4 : i64, split_dimension = 0 : i64}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %13 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %14 = stablehlo.multiply %arg1, %13 : tensor<4x8xf32>
      %15 = "stablehlo.all_reduce"(%14) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %16 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
        stablehlo.return %16 : tensor<f32>
      }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
      sdy.return %6, %9, %10, %11, %12, %15 : tensor<4x8xf32>, tensor<16x8xf32>, tensor<1x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    } : (tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<64x8xf32>, tensor<4x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>)
    return %0#0, %0#1, %0#2, %0#3, %0#4, %0#5 : tensor<16x8xf32>, tensor<64x8xf32>, tensor<4x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>
  }
}
