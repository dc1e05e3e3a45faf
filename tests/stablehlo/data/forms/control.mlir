module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xf32>, %arg1: tensor<i32>) -> (tensor<4x8xf32> {jax.result_info = "result[0]"}, tensor<4x8xf32> {jax.result_info = "result[1]"}, tensor<4x8xf32> {jax.result_info = "result[2]"}, tensor<i32> {jax.result_info = "result[3][0]"}, tensor<4x8xf32> {jax.result_info = "result[3][1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare GT, %arg1, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %1 = stablehlo.convert %0 : (tensor<i1>) -> tensor<i32>
    %2 = "stablehlo.case"(%1) ({
      %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %8 = stablehlo.add %arg0, %7 : tensor<4x8xf32>
      stablehlo.return %8 : tensor<4x8xf32>
    }, {
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %8 = stablehlo.multiply %arg0, %7 : tensor<4x8xf32>
      stablehlo.return %8 : tensor<4x8xf32>
    }) : (tensor<i32>) -> tensor<4x8xf32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %3:3 = stablehlo.while(%iterArg = %c_0, %iterArg_3 = %arg1, %iterArg_4 = %arg0) : tensor<i32>, tensor<i32>, tensor<4x8xf32>
    cond {
      %7 = stablehlo.compare LT, %iterArg, %iterArg_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %7 : tensor<i1>
    } do {
      %c_5 = stablehlo.constant dense<1> : tensor<i32>
      %7 = stablehlo.add %iterArg, %c_5 : tensor<i32>
      %8 = stablehlo.convert %iterArg : (tensor<i32>) -> tensor<f32>
      %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %10 = stablehlo.add %iterArg_4, %9 : tensor<4x8xf32>
      stablehlo.return %7, %iterArg_3, %10 : tensor<i32>, tensor<i32>, tensor<4x8xf32>
    }
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<2> : tensor<i32>
    %4 = stablehlo.clamp %c_1, %arg1, %c_2 : tensor<i32>
    %5 = "stablehlo.case"(%4) ({
      stablehlo.return %arg0 : tensor<4x8xf32>
    }, {
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %8 = stablehlo.multiply %arg0, %7 : tensor<4x8xf32>
      stablehlo.return %8 : tensor<4x8xf32>
    }, {
      %7 = stablehlo.negate %arg0 : tensor<4x8xf32>
      stablehlo.return %7 : tensor<4x8xf32>
    }) : (tensor<i32>) -> tensor<4x8xf32>
    %6:2 = stablehlo.while(%iterArg = %arg1, %iterArg_3 = %arg0) : tensor<i32>, tensor<4x8xf32>
    cond {
      %c_4 = stablehlo.constant dense<10> : tensor<i32>
      %7 = stablehlo.compare LT, %iterArg, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %7 : tensor<i1>
    } do {
      %c_4 = stablehlo.constant dense<1> : tensor<i32>
      %7 = stablehlo.add %iterArg, %c_4 : tensor<i32>
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %9 = stablehlo.multiply %iterArg_3, %8 : tensor<4x8xf32>
      stablehlo.return %7, %9 : tensor<i32>, tensor<4x8xf32>
    }
    return %2, %3#2, %5, %6#0, %6#1 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<i32>, tensor<4x8xf32>
  }
}
