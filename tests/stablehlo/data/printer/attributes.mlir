module @at attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {mhlo.sharding = "{replicated}"}, %arg1: tensor<i1>) -> tensor<4xf32> {
    %0 = stablehlo.exponential %arg0 {mhlo.frontend_attributes = {tag = "x y"}, mhlo.sharding = "{maximal device=0}", result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<HIGHEST>>} : tensor<4xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i1>) -> tensor<4xi1>
    %2 = stablehlo.select %1, %arg0, %0 : tensor<4xi1>, tensor<4xf32>
    %3 = stablehlo.tanh %2 {result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, ulps = 2, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<4xf32>
    return %3 : tensor<4xf32>
  }
}
