module @IrToHlo.133 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<4x5xi64>, %arg1: tensor<4x5xi64>, %arg2: tensor<i64>, %arg3: tensor<i64>, %arg4: tensor<f32>, %arg5: tensor<f32>, %arg6: tensor<i64>, %arg7: tensor<4x5xi32>, %arg8: tensor<i64>, %arg9: tensor<i64>) -> (tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4xi64>, tensor<i64>, tensor<4x5xf32>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>) {
    %c = stablehlo.constant dense<2> : tensor<4x5xi64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<4x5xf32>
    %c_0 = stablehlo.constant dense<1> : tensor<4x5xi64>
    %c_1 = stablehlo.constant dense<0> : tensor<4x5xi64>
    %c_2 = stablehlo.constant dense<-9223372036854775808> : tensor<i64>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.convert %arg1 : (tensor<4x5xi64>) -> tensor<4x5xf32>
    %1 = stablehlo.compare  EQ, %arg0, %c_1 : (tensor<4x5xi64>, tensor<4x5xi64>) -> tensor<4x5xi1>
    %2 = stablehlo.select %1, %c_0, %arg0 : tensor<4x5xi1>, tensor<4x5xi64>
    %3 = stablehlo.convert %2 : (tensor<4x5xi64>) -> tensor<4x5xf32>
    %4 = stablehlo.divide %0, %3 : tensor<4x5xf32>
    %5 = stablehlo.floor %4 : tensor<4x5xf32>
    %6 = stablehlo.convert %5 : (tensor<4x5xf32>) -> tensor<4x5xi64>
    %7 = stablehlo.abs %2 : tensor<4x5xi64>
    %8 = stablehlo.remainder %arg1, %7 : tensor<4x5xi64>
    %9 = stablehlo.sign %8 : tensor<4x5xi64>
    %10 = stablehlo.sign %2 : tensor<4x5xi64>
    %11 = stablehlo.multiply %9, %10 : tensor<4x5xi64>
    %12 = stablehlo.compare  LT, %11, %c_1 : (tensor<4x5xi64>, tensor<4x5xi64>) -> tensor<4x5xi1>
    %13 = stablehlo.convert %12 : (tensor<4x5xi1>) -> tensor<4x5xi64>
    %14 = stablehlo.multiply %2, %13 : tensor<4x5xi64>
    %15 = stablehlo.add %8, %14 : tensor<4x5xi64>
    %16 = stablehlo.abs %4 : tensor<4x5xf32>
    %17 = stablehlo.floor %16 : tensor<4x5xf32>
    %18 = stablehlo.compare  NE, %4, %4 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xi1>
    %19 = stablehlo.sign %4 : tensor<4x5xf32>
    %20 = stablehlo.select %18, %cst, %19 : tensor<4x5xi1>, tensor<4x5xf32>
    %21 = stablehlo.multiply %17, %20 : tensor<4x5xf32>
    %22 = stablehlo.convert %21 : (tensor<4x5xf32>) -> tensor<4x5xi64>
    %23 = stablehlo.and %arg1, %arg0 : tensor<4x5xi64>
    %24 = stablehlo.or %arg1, %arg0 : tensor<4x5xi64>
    %25 = stablehlo.xor %arg1, %arg0 : tensor<4x5xi64>
    %26 = stablehlo.abs %arg0 : tensor<4x5xi64>
    %27 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<i64>) -> tensor<4x5xi64>
    %28 = stablehlo.abs %27 : tensor<4x5xi64>
    %29 = stablehlo.remainder %26, %28 : tensor<4x5xi64>
    %30 = stablehlo.sign %29 : tensor<4x5xi64>
    %31 = stablehlo.sign %27 : tensor<4x5xi64>
    %32 = stablehlo.multiply %30, %31 : tensor<4x5xi64>
    %33 = stablehlo.compare  LT, %32, %c_1 : (tensor<4x5xi64>, tensor<4x5xi64>) -> tensor<4x5xi1>
    %34 = stablehlo.convert %33 : (tensor<4x5xi1>) -> tensor<4x5xi64>
    %35 = stablehlo.multiply %27, %34 : tensor<4x5xi64>
    %36 = stablehlo.add %29, %35 : tensor<4x5xi64>
    %37 = stablehlo.power %c, %36 : tensor<4x5xi64>
    %38 = stablehlo.multiply %arg1, %37 : tensor<4x5xi64>
    %39 = stablehlo.not %arg1 : tensor<4x5xi64>
    %40 = stablehlo.multiply %arg1, %arg0 : tensor<4x5xi64>
    %41 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<i64>) -> tensor<4x5xi64>
    %42 = stablehlo.add %40, %41 : tensor<4x5xi64>
    %43 = stablehlo.maximum %arg1, %arg0 : tensor<4x5xi64>
    %44 = stablehlo.reduce(%arg1 init: %c_3) applies stablehlo.add across dimensions = [1] : (tensor<4x5xi64>, tensor<i64>) -> tensor<4xi64>
    %45 = stablehlo.reduce(%arg1 init: %c_2) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<4x5xi64>, tensor<i64>) -> tensor<i64>
    %46 = stablehlo.broadcast_in_dim %arg4, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
    %47 = stablehlo.divide %0, %46 : tensor<4x5xf32>
    %48 = stablehlo.broadcast_in_dim %arg5, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
    %49 = stablehlo.multiply %0, %48 : tensor<4x5xf32>
    %50 = stablehlo.convert %49 : (tensor<4x5xf32>) -> tensor<4x5xi64>
    %51 = stablehlo.convert %arg7 : (tensor<4x5xi32>) -> tensor<4x5xi64>
    %52 = stablehlo.broadcast_in_dim %arg6, dims = [] : (tensor<i64>) -> tensor<4x5xi64>
    %53 = stablehlo.multiply %51, %52 : tensor<4x5xi64>
    %54 = stablehlo.broadcast_in_dim %arg9, dims = [] : (tensor<i64>) -> tensor<4x5xi64>
    %55 = stablehlo.broadcast_in_dim %arg8, dims = [] : (tensor<i64>) -> tensor<4x5xi64>
    %56 = stablehlo.clamp %54, %arg1, %55 : tensor<4x5xi64>
    %57 = stablehlo.abs %arg1 : tensor<4x5xi64>
    %58 = stablehlo.power %57, %c : tensor<4x5xi64>
    %59 = stablehlo.sign %arg1 : tensor<4x5xi64>
    return %6, %15, %22, %23, %24, %25, %38, %39, %42, %43, %44, %45, %47, %50, %53, %56, %58, %59 : tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4xi64>, tensor<i64>, tensor<4x5xf32>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>, tensor<4x5xi64>
  }
}
