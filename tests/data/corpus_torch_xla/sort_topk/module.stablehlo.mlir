module @IrToHlo.120 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<4x9xf32>, %arg1: tensor<16xi64>) -> (tensor<4x3xf32>, tensor<4x3xi64>, tensor<4x9xf32>, tensor<4x9xi64>, tensor<16xi64>, tensor<16xi64>, tensor<4x2xf32>, tensor<4xf32>) {
    %0 = stablehlo.iota dim = 0 : tensor<16xi32>
    %1:2 = "stablehlo.sort"(%arg1, %0) <{dimension = 0 : i64, is_stable = false}> ({
    ^bb0(%arg2: tensor<i64>, %arg3: tensor<i64>, %arg4: tensor<i32>, %arg5: tensor<i32>):
      %18 = stablehlo.compare  LT, %arg2, %arg3 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %18 : tensor<i1>
    }) : (tensor<16xi64>, tensor<16xi32>) -> (tensor<16xi64>, tensor<16xi32>)
    %2 = "stablehlo.sort"(%arg1) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg2: tensor<i64>, %arg3: tensor<i64>):
      %18 = stablehlo.compare  LT, %arg2, %arg3 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %18 : tensor<i1>
    }) : (tensor<16xi64>) -> tensor<16xi64>
    %3 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %18 = stablehlo.compare  LT, %arg2, %arg3,  TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %18 : tensor<i1>
    }) : (tensor<4x9xf32>) -> tensor<4x9xf32>
    %4 = stablehlo.iota dim = 0 : tensor<9xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [1] : (tensor<9xi32>) -> tensor<4x9xi32>
    %6:2 = "stablehlo.sort"(%arg0, %5) <{dimension = 1 : i64, is_stable = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>, %arg4: tensor<i32>, %arg5: tensor<i32>):
      %18 = stablehlo.compare  GT, %arg2, %arg3,  TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %18 : tensor<i1>
    }) : (tensor<4x9xf32>, tensor<4x9xi32>) -> (tensor<4x9xf32>, tensor<4x9xi32>)
    %7 = stablehlo.slice %6#0 [0:4, 0:3] : (tensor<4x9xf32>) -> tensor<4x3xf32>
    %8 = stablehlo.slice %6#1 [0:4, 0:3] : (tensor<4x9xi32>) -> tensor<4x3xi32>
    %9 = stablehlo.convert %8 : (tensor<4x3xi32>) -> tensor<4x3xi64>
    %10 = stablehlo.iota dim = 0 : tensor<4xi32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<4xi32>) -> tensor<4x9xi32>
    %12:2 = "stablehlo.sort"(%arg0, %11) <{dimension = 0 : i64, is_stable = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>, %arg4: tensor<i32>, %arg5: tensor<i32>):
      %18 = stablehlo.compare  GT, %arg2, %arg3,  TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %18 : tensor<i1>
    }) : (tensor<4x9xf32>, tensor<4x9xi32>) -> (tensor<4x9xf32>, tensor<4x9xi32>)
    %13 = stablehlo.convert %12#1 : (tensor<4x9xi32>) -> tensor<4x9xi64>
    %14 = stablehlo.convert %1#1 : (tensor<16xi32>) -> tensor<16xi64>
    %15 = stablehlo.slice %3 [0:4, 0:2] : (tensor<4x9xf32>) -> tensor<4x2xf32>
    %16 = stablehlo.slice %3 [0:4, 1:2] : (tensor<4x9xf32>) -> tensor<4x1xf32>
    %17 = stablehlo.reshape %16 : (tensor<4x1xf32>) -> tensor<4xf32>
    return %7, %9, %12#0, %13, %14, %2, %15, %17 : tensor<4x3xf32>, tensor<4x3xi64>, tensor<4x9xf32>, tensor<4x9xi64>, tensor<16xi64>, tensor<16xi64>, tensor<4x2xf32>, tensor<4xf32>
  }
}
