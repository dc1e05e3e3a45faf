module @ctl attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<i1>, %arg2: tensor<i32>) -> (tensor<4xf32>, tensor<i32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<4xf32>
    cond {
      %c_1 = stablehlo.constant dense<3> : tensor<i32>
      %4 = stablehlo.compare LT, %iterArg, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %4 : tensor<i1>
    } do {
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %4 = stablehlo.add %iterArg, %c_1 : tensor<i32>
      %5 = stablehlo.multiply %iterArg_0, %iterArg_0 : tensor<4xf32>
      stablehlo.return %4, %5 : tensor<i32>, tensor<4xf32>
    }
    %1 = "stablehlo.if"(%arg1) ({
      %4 = stablehlo.negate %0#1 : tensor<4xf32>
      stablehlo.return %4 : tensor<4xf32>
    }, {
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %5 = stablehlo.multiply %0#1, %4 : tensor<4xf32>
      stablehlo.return %5 : tensor<4xf32>
    }) : (tensor<i1>) -> tensor<4xf32>
    %2 = "stablehlo.case"(%arg2) ({
      %4 = stablehlo.exponential %1 : tensor<4xf32>
      stablehlo.return %4 : tensor<4xf32>
    }, {
      %4 = stablehlo.tanh %arg0 : tensor<4xf32>
      stablehlo.return %4 : tensor<4xf32>
    }) : (tensor<i32>) -> tensor<4xf32>
    %3:2 = call @helper(%2) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    return %3#0, %arg2 : tensor<4xf32>, tensor<i32>
  }
  func.func private @helper(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %0 = stablehlo.sine %arg0 : tensor<4xf32>
    return %0, %arg0 : tensor<4xf32>, tensor<4xf32>
  }
}
