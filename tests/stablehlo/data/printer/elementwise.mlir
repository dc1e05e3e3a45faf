module @ew attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xcomplex<f32>>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xui32>, tensor<4xi1>, tensor<4xf32>, tensor<4xcomplex<f32>>) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    %1 = stablehlo.abs %arg2 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %2 = stablehlo.compare LT, %arg0, %arg1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %3 = stablehlo.compare GE, %arg0, %arg1, TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %4 = stablehlo.select %2, %0, %1 : tensor<4xi1>, tensor<4xf32>
    %cst = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.clamp %cst, %4, %cst_0 : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %6 = stablehlo.convert %5 : (tensor<4xf32>) -> tensor<4xi32>
    %7 = stablehlo.bitcast_convert %arg0 : (tensor<4xf32>) -> tensor<4xui32>
    %8 = chlo.erf %arg0 : tensor<4xf32> -> tensor<4xf32>
    %9 = stablehlo.reduce_precision %8, format = e5m10 : tensor<4xf32>
    %10 = stablehlo.complex %arg0, %arg1 : tensor<4xcomplex<f32>>
    return %5, %6, %7, %3, %9, %10 : tensor<4xf32>, tensor<4xi32>, tensor<4xui32>, tensor<4xi1>, tensor<4xf32>, tensor<4xcomplex<f32>>
  }
}
