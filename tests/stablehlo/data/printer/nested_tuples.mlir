module @tup attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<i32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<i32>, tensor<2xf32>, tensor<2xf32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:3 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0, %iterArg_1 = %arg1) : tensor<i32>, tensor<2xf32>, tensor<2xf32>
    cond {
      %c_2 = stablehlo.constant dense<2> : tensor<i32>
      %3 = stablehlo.compare LT, %iterArg, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    } do {
      %c_2 = stablehlo.constant dense<1> : tensor<i32>
      %3 = stablehlo.add %iterArg, %c_2 : tensor<i32>
      stablehlo.return %3, %iterArg_0, %iterArg_1 : tensor<i32>, tensor<2xf32>, tensor<2xf32>
    }
    %1:2 = "stablehlo.case"(%arg2) ({
      %3 = stablehlo.tuple %0#1, %0#2 : tuple<tensor<2xf32>, tensor<2xf32>>
      %4:2 = func.call @swap(%3) : (tuple<tensor<2xf32>, tensor<2xf32>>) -> (tensor<2xf32>, tensor<2xf32>)
      stablehlo.return %4#0, %4#1 : tensor<2xf32>, tensor<2xf32>
    }, {
      stablehlo.return %arg0, %arg1 : tensor<2xf32>, tensor<2xf32>
    }) : (tensor<i32>) -> (tensor<2xf32>, tensor<2xf32>)
    %2:3 = stablehlo.while(%iterArg = %0#0, %iterArg_0 = %0#1, %iterArg_1 = %0#2) : tensor<i32>, tensor<2xf32>, tensor<2xf32>
    cond {
      %c_2 = stablehlo.constant dense<2> : tensor<i32>
      %3 = stablehlo.compare LT, %iterArg, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    } do {
      %c_2 = stablehlo.constant dense<1> : tensor<i32>
      %3 = stablehlo.add %iterArg, %c_2 : tensor<i32>
      stablehlo.return %3, %iterArg_0, %iterArg_1 : tensor<i32>, tensor<2xf32>, tensor<2xf32>
    }
    return %1#0, %1#1, %2#0, %2#1, %2#2 : tensor<2xf32>, tensor<2xf32>, tensor<i32>, tensor<2xf32>, tensor<2xf32>
  }
  func.func private @swap(%arg0: tuple<tensor<2xf32>, tensor<2xf32>>) -> (tensor<2xf32>, tensor<2xf32>) {
    %0 = stablehlo.get_tuple_element %arg0[0] : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
    %1 = stablehlo.get_tuple_element %arg0[1] : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
    return %1, %0 : tensor<2xf32>, tensor<2xf32>
  }
}
