module @IrToHlo.303 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<6x7xf32>) -> (tensor<f32>, tensor<6xf32>, tensor<7xf32>, tensor<6xf32>, tensor<6xf32>, tensor<7xf32>, tensor<6xi64>, tensor<i64>, tensor<6xf32>, tensor<7xf32>, tensor<6xi1>, tensor<7xi1>, tensor<6xf32>, tensor<6xi64>) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<6x7xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<6x7xf32>
    %cst_1 = stablehlo.constant dense<5.000000e-01> : tensor<7xf32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<6x7xf32>
    %cst_3 = stablehlo.constant dense<2.000000e-01> : tensor<7xf32>
    %cst_4 = stablehlo.constant dense<0.166666672> : tensor<7xf32>
    %cst_5 = stablehlo.constant dense<0.142857149> : tensor<6xf32>
    %c = stablehlo.constant dense<false> : tensor<i1>
    %c_6 = stablehlo.constant dense<true> : tensor<i1>
    %cst_7 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %cst_8 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_9 = stablehlo.constant dense<3.40282347E+38> : tensor<f32>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %c_11 = stablehlo.constant dense<0> : tensor<i32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_13 = stablehlo.constant dense<-3.40282347E+38> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst_12) applies stablehlo.add across dimensions = [0, 1] : (tensor<6x7xf32>, tensor<f32>) -> tensor<f32>
    %1 = stablehlo.reduce(%arg0 init: %cst_12) applies stablehlo.add across dimensions = [1] : (tensor<6x7xf32>, tensor<f32>) -> tensor<6xf32>
    %2 = stablehlo.multiply %1, %cst_5 : tensor<6xf32>
    %3 = stablehlo.reduce(%arg0 init: %cst_12) applies stablehlo.add across dimensions = [0] : (tensor<6x7xf32>, tensor<f32>) -> tensor<7xf32>
    %4 = stablehlo.multiply %3, %cst_4 : tensor<7xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [1] : (tensor<7xf32>) -> tensor<6x7xf32>
    %6 = stablehlo.subtract %arg0, %5 : tensor<6x7xf32>
    %7 = stablehlo.multiply %6, %6 : tensor<6x7xf32>
    %8 = stablehlo.reduce(%7 init: %cst_12) applies stablehlo.add across dimensions = [0] : (tensor<6x7xf32>, tensor<f32>) -> tensor<7xf32>
    %9 = stablehlo.multiply %8, %cst_3 : tensor<7xf32>
    %10 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<6xf32>) -> tensor<6x7xf32>
    %11 = stablehlo.subtract %arg0, %10 : tensor<6x7xf32>
    %12 = stablehlo.multiply %11, %11 : tensor<6x7xf32>
    %13 = stablehlo.reduce(%12 init: %cst_12) applies stablehlo.add across dimensions = [1] : (tensor<6x7xf32>, tensor<f32>) -> tensor<6xf32>
    %14 = stablehlo.multiply %13, %cst_5 : tensor<6xf32>
    %15 = stablehlo.sqrt %14 : tensor<6xf32>
    %16 = stablehlo.reduce(%arg0 init: %cst_13) applies stablehlo.maximum across dimensions = [1] : (tensor<6x7xf32>, tensor<f32>) -> tensor<6xf32>
    %17 = stablehlo.reduce(%arg0 init: %cst_9) applies stablehlo.minimum across dimensions = [0] : (tensor<6x7xf32>, tensor<f32>) -> tensor<7xf32>
    %18 = stablehlo.iota dim = 0 : tensor<7xi32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [1] : (tensor<7xi32>) -> tensor<6x7xi32>
    %20:2 = stablehlo.reduce(%arg0 init: %cst_8), (%19 init: %c_11) across dimensions = [1] : (tensor<6x7xf32>, tensor<6x7xi32>, tensor<f32>, tensor<i32>) -> (tensor<6xf32>, tensor<6xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %43 = stablehlo.compare  GE, %arg1, %arg3 : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %44 = stablehlo.select %43, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %45 = stablehlo.compare  EQ, %arg1, %arg3 : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %46 = stablehlo.minimum %arg2, %arg4 : tensor<i32>
      %47 = stablehlo.select %43, %arg2, %arg4 : tensor<i1>, tensor<i32>
      %48 = stablehlo.select %45, %46, %47 : tensor<i1>, tensor<i32>
      stablehlo.return %44, %48 : tensor<f32>, tensor<i32>
    }
    %21 = stablehlo.convert %20#1 : (tensor<6xi32>) -> tensor<6xi64>
    %22 = stablehlo.reshape %arg0 : (tensor<6x7xf32>) -> tensor<42xf32>
    %23 = stablehlo.iota dim = 0 : tensor<42xi32>
    %24:2 = stablehlo.reduce(%22 init: %cst_7), (%23 init: %c_11) across dimensions = [0] : (tensor<42xf32>, tensor<42xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %43 = stablehlo.compare  LE, %arg1, %arg3 : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %44 = stablehlo.select %43, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %45 = stablehlo.compare  EQ, %arg1, %arg3 : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %46 = stablehlo.minimum %arg2, %arg4 : tensor<i32>
      %47 = stablehlo.select %43, %arg2, %arg4 : tensor<i1>, tensor<i32>
      %48 = stablehlo.select %45, %46, %47 : tensor<i1>, tensor<i32>
      stablehlo.return %44, %48 : tensor<f32>, tensor<i32>
    }
    %25 = stablehlo.convert %24#1 : (tensor<i32>) -> tensor<i64>
    %26 = stablehlo.reshape %16 : (tensor<6xf32>) -> tensor<6x1xf32>
    %27 = stablehlo.broadcast_in_dim %16, dims = [0] : (tensor<6xf32>) -> tensor<6x7xf32>
    %28 = stablehlo.subtract %arg0, %27 : tensor<6x7xf32>
    %29 = stablehlo.exponential %28 : tensor<6x7xf32>
    %30 = stablehlo.reduce(%29 init: %cst_12) applies stablehlo.add across dimensions = [1] : (tensor<6x7xf32>, tensor<f32>) -> tensor<6xf32>
    %31 = stablehlo.log %30 : tensor<6xf32>
    %32 = stablehlo.reduce(%26 init: %cst_12) applies stablehlo.add across dimensions = [1] : (tensor<6x1xf32>, tensor<f32>) -> tensor<6xf32>
    %33 = stablehlo.add %31, %32 : tensor<6xf32>
    %34 = stablehlo.abs %arg0 : tensor<6x7xf32>
    %35 = stablehlo.power %34, %cst_2 : tensor<6x7xf32>
    %36 = stablehlo.reduce(%35 init: %cst_12) applies stablehlo.add across dimensions = [0] : (tensor<6x7xf32>, tensor<f32>) -> tensor<7xf32>
    %37 = stablehlo.power %36, %cst_1 : tensor<7xf32>
    %38 = stablehlo.compare  GT, %arg0, %cst_0 : (tensor<6x7xf32>, tensor<6x7xf32>) -> tensor<6x7xi1>
    %39 = stablehlo.reduce(%38 init: %c_6) across dimensions = [1] : (tensor<6x7xi1>, tensor<i1>) -> tensor<6xi1>
     reducer(%arg1: tensor<i1>, %arg2: tensor<i1>)  {
      %43 = stablehlo.and %arg1, %arg2 : tensor<i1>
      %44 = stablehlo.select %43, %c_6, %c : tensor<i1>, tensor<i1>
      stablehlo.return %44 : tensor<i1>
    }
    %40 = stablehlo.compare  GT, %arg0, %cst : (tensor<6x7xf32>, tensor<6x7xf32>) -> tensor<6x7xi1>
    %41 = stablehlo.reduce(%40 init: %c) across dimensions = [0] : (tensor<6x7xi1>, tensor<i1>) -> tensor<7xi1>
     reducer(%arg1: tensor<i1>, %arg2: tensor<i1>)  {
      %43 = stablehlo.or %arg1, %arg2 : tensor<i1>
      %44 = stablehlo.select %43, %c_6, %c : tensor<i1>, tensor<i1>
      stablehlo.return %44 : tensor<i1>
    }
    %42 = stablehlo.reduce(%arg0 init: %cst_10) applies stablehlo.multiply across dimensions = [1] : (tensor<6x7xf32>, tensor<f32>) -> tensor<6xf32>
    return %0, %2, %9, %15, %16, %17, %21, %25, %33, %37, %39, %41, %42, %21 : tensor<f32>, tensor<6xf32>, tensor<7xf32>, tensor<6xf32>, tensor<6xf32>, tensor<7xf32>, tensor<6xi64>, tensor<i64>, tensor<6xf32>, tensor<7xf32>, tensor<6xi1>, tensor<7xi1>, tensor<6xf32>, tensor<6xi64>
  }
}
