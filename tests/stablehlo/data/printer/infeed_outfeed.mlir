module @feeds attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> tensor<2xf32> {
    %0 = stablehlo.after_all : !stablehlo.token
    %1:3 = "stablehlo.infeed"(%0) <{infeed_config = "cfg"}> : (!stablehlo.token) -> (tensor<2xf32>, tensor<i32>, !stablehlo.token)
    %2 = "stablehlo.outfeed"(%1#0, %1#1, %1#2) <{outfeed_config = ""}> : (tensor<2xf32>, tensor<i32>, !stablehlo.token) -> !stablehlo.token
    return %1#0 : tensor<2xf32>
  }
}
