module @IrToHlo.63 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<f32>, %arg1: tensor<5x4xf32>, %arg2: tensor<5x4xf32>, %arg3: tensor<f32>, %arg4: tensor<f32>, %arg5: tensor<f32>, %arg6: tensor<f32>, %arg7: tensor<f32>, %arg8: tensor<f64>) -> (tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xi1>, tensor<5x4xf32>, tensor<5x4xi1>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<5x4xf32>
    %c = stablehlo.constant dense<0> : tensor<5x4xui8>
    %0 = stablehlo.compare  GT, %arg2, %arg1 : (tensor<5x4xf32>, tensor<5x4xf32>) -> tensor<5x4xi1>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<f32>) -> tensor<5x4xf32>
    %2 = stablehlo.multiply %arg1, %1 : tensor<5x4xf32>
    %3 = stablehlo.select %0, %arg2, %2 : tensor<5x4xi1>, tensor<5x4xf32>
    %4 = stablehlo.broadcast_in_dim %arg4, dims = [] : (tensor<f32>) -> tensor<5x4xf32>
    %5 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<f32>) -> tensor<5x4xf32>
    %6 = stablehlo.clamp %4, %arg2, %5 : tensor<5x4xf32>
    %7 = stablehlo.minimum %arg2, %arg1 : tensor<5x4xf32>
    %8 = stablehlo.broadcast_in_dim %arg5, dims = [] : (tensor<f32>) -> tensor<5x4xf32>
    %9 = stablehlo.subtract %arg1, %arg2 : tensor<5x4xf32>
    %10 = stablehlo.multiply %8, %9 : tensor<5x4xf32>
    %11 = stablehlo.add %arg2, %10 : tensor<5x4xf32>
    %12 = stablehlo.compare  EQ, %arg2, %arg1 : (tensor<5x4xf32>, tensor<5x4xf32>) -> tensor<5x4xi1>
    %13 = stablehlo.convert %12 : (tensor<5x4xi1>) -> tensor<5x4xui8>
    %14 = stablehlo.subtract %arg2, %arg1 : tensor<5x4xf32>
    %15 = stablehlo.abs %14 : tensor<5x4xf32>
    %16 = stablehlo.compare  EQ, %15, %15 : (tensor<5x4xf32>, tensor<5x4xf32>) -> tensor<5x4xi1>
    %17 = stablehlo.abs %15 : tensor<5x4xf32>
    %18 = stablehlo.convert %17 : (tensor<5x4xf32>) -> tensor<5x4xf64>
    %19 = stablehlo.broadcast_in_dim %arg8, dims = [] : (tensor<f64>) -> tensor<5x4xf64>
    %20 = stablehlo.compare  NE, %18, %19 : (tensor<5x4xf64>, tensor<5x4xf64>) -> tensor<5x4xi1>
    %21 = stablehlo.multiply %16, %20 : tensor<5x4xi1>
    %22 = stablehlo.convert %21 : (tensor<5x4xi1>) -> tensor<5x4xui8>
    %23 = stablehlo.broadcast_in_dim %arg7, dims = [] : (tensor<f32>) -> tensor<5x4xf32>
    %24 = stablehlo.multiply %arg1, %23 : tensor<5x4xf32>
    %25 = stablehlo.abs %24 : tensor<5x4xf32>
    %26 = stablehlo.broadcast_in_dim %arg6, dims = [] : (tensor<f32>) -> tensor<5x4xf32>
    %27 = stablehlo.add %25, %26 : tensor<5x4xf32>
    %28 = stablehlo.compare  LE, %15, %27 : (tensor<5x4xf32>, tensor<5x4xf32>) -> tensor<5x4xi1>
    %29 = stablehlo.convert %28 : (tensor<5x4xi1>) -> tensor<5x4xui8>
    %30 = stablehlo.and %22, %29 : tensor<5x4xui8>
    %31 = stablehlo.compare  NE, %30, %c : (tensor<5x4xui8>, tensor<5x4xui8>) -> tensor<5x4xi1>
    %32 = stablehlo.convert %31 : (tensor<5x4xi1>) -> tensor<5x4xui8>
    %33 = stablehlo.or %13, %32 : tensor<5x4xui8>
    %34 = stablehlo.compare  NE, %33, %c : (tensor<5x4xui8>, tensor<5x4xui8>) -> tensor<5x4xi1>
    %35 = stablehlo.compare  GT, %arg2, %cst : (tensor<5x4xf32>, tensor<5x4xf32>) -> tensor<5x4xi1>
    %36 = stablehlo.compare  GT, %arg1, %cst : (tensor<5x4xf32>, tensor<5x4xf32>) -> tensor<5x4xi1>
    %37 = stablehlo.xor %35, %36 : tensor<5x4xi1>
    return %3, %6, %7, %11, %34, %7, %37 : tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xi1>, tensor<5x4xf32>, tensor<5x4xi1>
  }
}
