module @IrToHlo.386 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<6xi64>, %arg1: tensor<6x5xf32>, %arg2: tensor<6x5xf32>, %arg3: tensor<f32>, %arg4: tensor<f32>, %arg5: tensor<f32>, %arg6: tensor<i64>, %arg7: tensor<f32>) -> (tensor<f32>, tensor<6xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<6x5xi64>, tensor<f32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<6xf32>
    %c = stablehlo.constant dense<1> : tensor<6x1xi64>
    %c_0 = stablehlo.constant dense<0> : tensor<6x5xi64>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<6x5xf64>
    %cst_2 = stablehlo.constant dense<0.0333333351> : tensor<f32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<6x5xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<6x5xf32>
    %c_5 = stablehlo.constant dense<0> : tensor<i64>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c_8 = stablehlo.constant dense<-100> : tensor<6xi64>
    %0 = stablehlo.compare  NE, %arg0, %c_8 : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi1>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<6xi1>) -> tensor<6x5xi1>
    %2 = stablehlo.select %1, %cst_4, %cst_3 : tensor<6x5xi1>, tensor<6x5xf32>
    %3 = stablehlo.broadcast_in_dim %arg0, dims = [0] : (tensor<6xi64>) -> tensor<6x5xi64>
    %4 = stablehlo.iota dim = 0 : tensor<5xi64>
    %5 = stablehlo.broadcast_in_dim %4, dims = [1] : (tensor<5xi64>) -> tensor<6x5xi64>
    %6 = stablehlo.compare  EQ, %3, %5 : (tensor<6x5xi64>, tensor<6x5xi64>) -> tensor<6x5xi1>
    %7 = stablehlo.select %6, %cst_4, %cst_3 : tensor<6x5xi1>, tensor<6x5xf32>
    %8 = stablehlo.multiply %2, %7 : tensor<6x5xf32>
    %9 = stablehlo.compare  NE, %7, %cst_4 : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xi1>
    %10 = stablehlo.negate %7 : tensor<6x5xf32>
    %11 = stablehlo.reduce(%arg1 init: %cst_6) applies stablehlo.maximum across dimensions = [1] : (tensor<6x5xf32>, tensor<f32>) -> tensor<6xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<6xf32>) -> tensor<6x5xf32>
    %13 = stablehlo.subtract %arg1, %12 : tensor<6x5xf32>
    %14 = stablehlo.exponential %13 : tensor<6x5xf32>
    %15 = stablehlo.reduce(%14 init: %cst_7) applies stablehlo.add across dimensions = [1] : (tensor<6x5xf32>, tensor<f32>) -> tensor<6xf32>
    %16 = stablehlo.log %15 : tensor<6xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0] : (tensor<6xf32>) -> tensor<6x5xf32>
    %18 = stablehlo.subtract %13, %17 : tensor<6x5xf32>
    %19 = stablehlo.multiply %10, %18 : tensor<6x5xf32>
    %20 = stablehlo.select %9, %cst_3, %19 : tensor<6x5xi1>, tensor<6x5xf32>
    %21 = stablehlo.multiply %20, %8 : tensor<6x5xf32>
    %22 = stablehlo.reduce(%21 init: %cst_7) applies stablehlo.add across dimensions = [0, 1] : (tensor<6x5xf32>, tensor<f32>) -> tensor<f32>
    %23 = stablehlo.reduce(%8 init: %cst_7) applies stablehlo.add across dimensions = [0, 1] : (tensor<6x5xf32>, tensor<f32>) -> tensor<f32>
    %24 = stablehlo.divide %22, %23 : tensor<f32>
    %25 = stablehlo.reduce(%21 init: %cst_7) applies stablehlo.add across dimensions = [1] : (tensor<6x5xf32>, tensor<f32>) -> tensor<6xf32>
    %26 = stablehlo.subtract %cst_4, %arg2 : tensor<6x5xf32>
    %27 = stablehlo.multiply %26, %arg1 : tensor<6x5xf32>
    %28 = stablehlo.negate %arg1 : tensor<6x5xf32>
    %29 = stablehlo.maximum %28, %cst_3 : tensor<6x5xf32>
    %30 = stablehlo.negate %29 : tensor<6x5xf32>
    %31 = stablehlo.exponential %30 : tensor<6x5xf32>
    %32 = stablehlo.subtract %28, %29 : tensor<6x5xf32>
    %33 = stablehlo.exponential %32 : tensor<6x5xf32>
    %34 = stablehlo.add %31, %33 : tensor<6x5xf32>
    %35 = stablehlo.log %34 : tensor<6x5xf32>
    %36 = stablehlo.add %29, %35 : tensor<6x5xf32>
    %37 = stablehlo.negate %36 : tensor<6x5xf32>
    %38 = stablehlo.subtract %27, %37 : tensor<6x5xf32>
    %39 = stablehlo.reduce(%38 init: %cst_7) applies stablehlo.add across dimensions = [0, 1] : (tensor<6x5xf32>, tensor<f32>) -> tensor<f32>
    %40 = stablehlo.multiply %39, %cst_2 : tensor<f32>
    %41 = stablehlo.subtract %arg1, %arg2 : tensor<6x5xf32>
    %42 = stablehlo.abs %41 : tensor<6x5xf32>
    %43 = stablehlo.convert %42 : (tensor<6x5xf32>) -> tensor<6x5xf64>
    %44 = stablehlo.compare  LT, %43, %cst_1 : (tensor<6x5xf64>, tensor<6x5xf64>) -> tensor<6x5xi1>
    %45 = stablehlo.multiply %41, %41 : tensor<6x5xf32>
    %46 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %47 = stablehlo.multiply %45, %46 : tensor<6x5xf32>
    %48 = stablehlo.divide %47, %cst_4 : tensor<6x5xf32>
    %49 = stablehlo.subtract %42, %46 : tensor<6x5xf32>
    %50 = stablehlo.select %44, %48, %49 : tensor<6x5xi1>, tensor<6x5xf32>
    %51 = stablehlo.reduce(%50 init: %cst_7) applies stablehlo.add across dimensions = [0, 1] : (tensor<6x5xf32>, tensor<f32>) -> tensor<f32>
    %52 = stablehlo.multiply %51, %cst_2 : tensor<f32>
    %53 = stablehlo.reduce(%arg2 init: %cst_6) applies stablehlo.maximum across dimensions = [1] : (tensor<6x5xf32>, tensor<f32>) -> tensor<6xf32>
    %54 = stablehlo.broadcast_in_dim %53, dims = [0] : (tensor<6xf32>) -> tensor<6x5xf32>
    %55 = stablehlo.subtract %arg2, %54 : tensor<6x5xf32>
    %56 = stablehlo.exponential %55 : tensor<6x5xf32>
    %57 = stablehlo.reduce(%56 init: %cst_7) applies stablehlo.add across dimensions = [1] : (tensor<6x5xf32>, tensor<f32>) -> tensor<6xf32>
    %58 = stablehlo.broadcast_in_dim %57, dims = [0] : (tensor<6xf32>) -> tensor<6x5xf32>
    %59 = stablehlo.divide %56, %58 : tensor<6x5xf32>
    %60 = stablehlo.compare  NE, %59, %59 : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xi1>
    %61 = stablehlo.compare  EQ, %59, %cst_3 : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xi1>
    %62 = stablehlo.log %59 : tensor<6x5xf32>
    %63 = stablehlo.multiply %59, %62 : tensor<6x5xf32>
    %64 = stablehlo.select %61, %cst_3, %63 : tensor<6x5xi1>, tensor<6x5xf32>
    %65 = stablehlo.select %60, %59, %64 : tensor<6x5xi1>, tensor<6x5xf32>
    %66 = stablehlo.multiply %59, %18 : tensor<6x5xf32>
    %67 = stablehlo.subtract %65, %66 : tensor<6x5xf32>
    %68 = stablehlo.reduce(%67 init: %cst_7) applies stablehlo.add across dimensions = [0, 1] : (tensor<6x5xf32>, tensor<f32>) -> tensor<f32>
    %69 = stablehlo.divide %68, %arg4 : tensor<f32>
    %70 = stablehlo.iota dim = 0 : tensor<6xi64>
    %71 = stablehlo.reshape %70 : (tensor<6xi64>) -> tensor<6x1x1xi64>
    %72 = stablehlo.reshape %arg0 : (tensor<6xi64>) -> tensor<6x1x1xi64>
    %73 = stablehlo.concatenate %71, %72, dim = 2 : (tensor<6x1x1xi64>, tensor<6x1x1xi64>) -> tensor<6x1x2xi64>
    %74 = "stablehlo.scatter"(%c_0, %73, %c) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg8: tensor<i64>, %arg9: tensor<i64>):
      stablehlo.return %arg9 : tensor<i64>
    }) : (tensor<6x5xi64>, tensor<6x1x2xi64>, tensor<6x1xi64>) -> tensor<6x5xi64>
    %75 = stablehlo.multiply %24, %arg7 : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %arg6, dims = [] : (tensor<i64>) -> tensor<6xi64>
    %77 = stablehlo.compare  EQ, %arg0, %76 : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi1>
    %78 = stablehlo.reduce(%18 init: %cst_7) applies stablehlo.add across dimensions = [1] : (tensor<6x5xf32>, tensor<f32>) -> tensor<6xf32>
    %79 = stablehlo.negate %78 : tensor<6xf32>
    %80 = stablehlo.select %77, %cst, %79 : tensor<6xi1>, tensor<6xf32>
    %81 = stablehlo.reduce(%80 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<6xf32>, tensor<f32>) -> tensor<f32>
    %82 = stablehlo.not %77 : tensor<6xi1>
    %83 = stablehlo.convert %82 : (tensor<6xi1>) -> tensor<6xi64>
    %84 = stablehlo.reduce(%83 init: %c_5) applies stablehlo.add across dimensions = [0] : (tensor<6xi64>, tensor<i64>) -> tensor<i64>
    %85 = stablehlo.convert %84 : (tensor<i64>) -> tensor<f32>
    %86 = stablehlo.divide %81, %85 : tensor<f32>
    %87 = stablehlo.multiply %86, %arg5 : tensor<f32>
    %88 = stablehlo.add %75, %87 : tensor<f32>
    return %24, %25, %40, %52, %69, %74, %88 : tensor<f32>, tensor<6xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<6x5xi64>, tensor<f32>
  }
}
