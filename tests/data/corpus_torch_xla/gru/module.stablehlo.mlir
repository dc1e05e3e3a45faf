module @IrToHlo.551 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<6x2x4xf32>, %arg1: tensor<9xf32>, %arg2: tensor<9xf32>, %arg3: tensor<9x3xf32>, %arg4: tensor<9x4xf32>, %arg5: tensor<9xf32>, %arg6: tensor<9xf32>, %arg7: tensor<9x3xf32>, %arg8: tensor<9x3xf32>) -> tensor<2x2x3xf32> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<2x3xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<6x2x3xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<6x3x9xf32>
    %0 = call @scan.280(%c, %cst, %arg4, %arg3, %arg2, %arg1, %arg0, %cst_0, %cst_0, %cst_1, %cst_0, %cst_0, %cst_0, %cst_0, %cst_0) {xla_shape = "(s64[], f32[2,3]{1,0}, f32[9,4]{1,0}, f32[9,3]{1,0}, f32[9]{0}, /*index=5*/f32[9]{0}, f32[6,2,4]{2,1,0}, f32[6,2,3]{2,1,0}, f32[6,2,3]{2,1,0}, f32[6,3,9]{2,1,0}, /*index=10*/f32[6,2,3]{2,1,0}, f32[6,2,3]{2,1,0}, f32[6,2,3]{2,1,0}, f32[6,2,3]{2,1,0}, f32[6,2,3]{2,1,0})"} : (tensor<i64>, tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<6x2x4xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x3x9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>) -> tuple<tensor<i64>, tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<6x2x4xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x3x9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>>
    %1 = stablehlo.get_tuple_element %0[7] : (tuple<tensor<i64>, tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<6x2x4xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x3x9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>>) -> tensor<6x2x3xf32>
    %2 = call @scan.511(%c, %cst, %arg8, %arg7, %arg6, %arg5, %1, %cst_0, %cst_0, %cst_1, %cst_1, %cst_0, %cst_0, %cst_0, %cst_0, %cst_0) {xla_shape = "(s64[], f32[2,3]{1,0}, f32[9,3]{1,0}, f32[9,3]{1,0}, f32[9]{0}, /*index=5*/f32[9]{0}, f32[6,2,3]{2,1,0}, f32[6,2,3]{2,1,0}, f32[6,2,3]{2,1,0}, f32[6,3,9]{2,1,0}, /*index=10*/f32[6,3,9]{2,1,0}, f32[6,2,3]{2,1,0}, f32[6,2,3]{2,1,0}, f32[6,2,3]{2,1,0}, f32[6,2,3]{2,1,0}, /*index=15*/f32[6,2,3]{2,1,0})"} : (tensor<i64>, tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x3x9xf32>, tensor<6x3x9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>) -> tuple<tensor<i64>, tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x3x9xf32>, tensor<6x3x9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>>
    %3 = stablehlo.get_tuple_element %0[1] : (tuple<tensor<i64>, tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<6x2x4xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x3x9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>>) -> tensor<2x3xf32>
    %4 = stablehlo.reshape %3 : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
    %5 = stablehlo.get_tuple_element %2[1] : (tuple<tensor<i64>, tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x3x9xf32>, tensor<6x3x9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>>) -> tensor<2x3xf32>
    %6 = stablehlo.reshape %5 : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
    %7 = stablehlo.concatenate %4, %6, dim = 0 : (tensor<1x2x3xf32>, tensor<1x2x3xf32>) -> tensor<2x2x3xf32>
    return %7 : tensor<2x2x3xf32>
  }
  func.func private @scan.280(%arg0: tensor<i64>, %arg1: tensor<2x3xf32>, %arg2: tensor<9x4xf32>, %arg3: tensor<9x3xf32>, %arg4: tensor<9xf32>, %arg5: tensor<9xf32>, %arg6: tensor<6x2x4xf32>, %arg7: tensor<6x2x3xf32>, %arg8: tensor<6x2x3xf32>, %arg9: tensor<6x3x9xf32>, %arg10: tensor<6x2x3xf32>, %arg11: tensor<6x2x3xf32>, %arg12: tensor<6x2x3xf32>, %arg13: tensor<6x2x3xf32>, %arg14: tensor<6x2x3xf32>) -> tuple<tensor<i64>, tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<6x2x4xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x3x9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %c_0 = stablehlo.constant dense<1> : tensor<i64>
    %c_1 = stablehlo.constant dense<6> : tensor<i64>
    %0:14 = stablehlo.while(%iterArg = %arg0, %iterArg_2 = %arg1, %iterArg_3 = %arg2, %iterArg_4 = %arg3, %iterArg_5 = %arg4, %iterArg_6 = %arg5, %iterArg_7 = %arg7, %iterArg_8 = %arg8, %iterArg_9 = %arg9, %iterArg_10 = %arg10, %iterArg_11 = %arg11, %iterArg_12 = %arg12, %iterArg_13 = %arg13, %iterArg_14 = %arg14) : tensor<i64>, tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x3x9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>
    cond {
      %2 = stablehlo.compare  LT, %iterArg, %c_1 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = stablehlo.add %iterArg, %c_0 : tensor<i64>
      %3 = stablehlo.dynamic_slice %arg6, %iterArg, %c, %c, sizes = [1, 2, 4] : (tensor<6x2x4xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<1x2x4xf32>
      %4 = stablehlo.reshape %3 : (tensor<1x2x4xf32>) -> tensor<2x4xf32>
      %5 = func.call @FnComputation.99(%iterArg_2, %iterArg_6, %iterArg_4, %iterArg_5, %iterArg_3, %4) {result_layout = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>], xla_shape = "(f32[2,3]{1,0}, f32[9,4]{1,0}, f32[9,3]{1,0}, f32[9]{0}, f32[9]{0}, /*index=5*/f32[2,3]{1,0}, f32[2,3]{1,0}, f32[3,9]{0,1}, f32[2,3]{1,0}, f32[2,3]{1,0}, /*index=10*/f32[2,3]{1,0}, f32[2,3]{1,0}, f32[2,3]{1,0})"} : (tensor<2x3xf32>, tensor<9xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9x4xf32>, tensor<2x4xf32>) -> tuple<tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>
      %6 = stablehlo.get_tuple_element %5[0] : (tuple<tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
      %7 = stablehlo.get_tuple_element %5[1] : (tuple<tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<9x4xf32>
      %8 = stablehlo.get_tuple_element %5[2] : (tuple<tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<9x3xf32>
      %9 = stablehlo.get_tuple_element %5[3] : (tuple<tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<9xf32>
      %10 = stablehlo.get_tuple_element %5[4] : (tuple<tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<9xf32>
      %11 = stablehlo.get_tuple_element %5[5] : (tuple<tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
      %12 = stablehlo.reshape %11 : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
      %13 = stablehlo.dynamic_update_slice %iterArg_7, %12, %iterArg, %c, %c : (tensor<6x2x3xf32>, tensor<1x2x3xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<6x2x3xf32>
      %14 = stablehlo.get_tuple_element %5[6] : (tuple<tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
      %15 = stablehlo.reshape %14 : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
      %16 = stablehlo.dynamic_update_slice %iterArg_8, %15, %iterArg, %c, %c : (tensor<6x2x3xf32>, tensor<1x2x3xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<6x2x3xf32>
      %17 = stablehlo.get_tuple_element %5[7] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[3,9]{0,1}"} : (tuple<tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<3x9xf32>
      %18 = stablehlo.reshape %17 : (tensor<3x9xf32>) -> tensor<1x3x9xf32>
      %19 = stablehlo.dynamic_update_slice %iterArg_9, %18, %iterArg, %c, %c : (tensor<6x3x9xf32>, tensor<1x3x9xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<6x3x9xf32>
      %20 = stablehlo.get_tuple_element %5[8] : (tuple<tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
      %21 = stablehlo.reshape %20 : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
      %22 = stablehlo.dynamic_update_slice %iterArg_10, %21, %iterArg, %c, %c : (tensor<6x2x3xf32>, tensor<1x2x3xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<6x2x3xf32>
      %23 = stablehlo.get_tuple_element %5[9] : (tuple<tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
      %24 = stablehlo.reshape %23 : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
      %25 = stablehlo.dynamic_update_slice %iterArg_11, %24, %iterArg, %c, %c : (tensor<6x2x3xf32>, tensor<1x2x3xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<6x2x3xf32>
      %26 = stablehlo.get_tuple_element %5[10] : (tuple<tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
      %27 = stablehlo.reshape %26 : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
      %28 = stablehlo.dynamic_update_slice %iterArg_12, %27, %iterArg, %c, %c : (tensor<6x2x3xf32>, tensor<1x2x3xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<6x2x3xf32>
      %29 = stablehlo.get_tuple_element %5[11] : (tuple<tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
      %30 = stablehlo.reshape %29 : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
      %31 = stablehlo.dynamic_update_slice %iterArg_13, %30, %iterArg, %c, %c : (tensor<6x2x3xf32>, tensor<1x2x3xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<6x2x3xf32>
      %32 = stablehlo.get_tuple_element %5[12] : (tuple<tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
      %33 = stablehlo.reshape %32 : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
      %34 = stablehlo.dynamic_update_slice %iterArg_14, %33, %iterArg, %c, %c : (tensor<6x2x3xf32>, tensor<1x2x3xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<6x2x3xf32>
      stablehlo.return %2, %6, %7, %8, %9, %10, %13, %16, %19, %22, %25, %28, %31, %34 : tensor<i64>, tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x3x9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>
    }
    %1 = stablehlo.tuple %0#0, %0#1, %0#2, %0#3, %0#4, %0#5, %arg6, %0#6, %0#7, %0#8, %0#9, %0#10, %0#11, %0#12, %0#13 {xla_shape = "(s64[], f32[2,3]{1,0}, f32[9,4]{1,0}, f32[9,3]{1,0}, f32[9]{0}, /*index=5*/f32[9]{0}, f32[6,2,4]{2,1,0}, f32[6,2,3]{2,1,0}, f32[6,2,3]{2,1,0}, f32[6,3,9]{2,1,0}, /*index=10*/f32[6,2,3]{2,1,0}, f32[6,2,3]{2,1,0}, f32[6,2,3]{2,1,0}, f32[6,2,3]{2,1,0}, f32[6,2,3]{2,1,0})"} : tuple<tensor<i64>, tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<6x2x4xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x3x9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>>
    return %1 : tuple<tensor<i64>, tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<6x2x4xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x3x9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>>
  }
  func.func private @FnComputation.99(%arg0: tensor<2x3xf32>, %arg1: tensor<9xf32>, %arg2: tensor<9x3xf32>, %arg3: tensor<9xf32>, %arg4: tensor<9x4xf32>, %arg5: tensor<2x4xf32>) -> tuple<tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<2x3xf32>
    %0 = stablehlo.transpose %arg4, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[4,9]{0,1}"} : (tensor<9x4xf32>) -> tensor<4x9xf32>
    %1 = stablehlo.dot_general %arg5, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4x9xf32>) -> tensor<2x9xf32>
    %2 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<9xf32>) -> tensor<2x9xf32>
    %3 = stablehlo.add %1, %2 : tensor<2x9xf32>
    %4 = stablehlo.slice %3 [0:2, 3:6] : (tensor<2x9xf32>) -> tensor<2x3xf32>
    %5 = stablehlo.transpose %arg2, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[3,9]{0,1}"} : (tensor<9x3xf32>) -> tensor<3x9xf32>
    %6 = stablehlo.dot_general %arg0, %5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x9xf32>) -> tensor<2x9xf32>
    %7 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<9xf32>) -> tensor<2x9xf32>
    %8 = stablehlo.add %6, %7 : tensor<2x9xf32>
    %9 = stablehlo.slice %8 [0:2, 3:6] : (tensor<2x9xf32>) -> tensor<2x3xf32>
    %10 = stablehlo.add %4, %9 : tensor<2x3xf32>
    %11 = stablehlo.logistic %10 : tensor<2x3xf32>
    %12 = stablehlo.subtract %cst, %11 : tensor<2x3xf32>
    %13 = stablehlo.slice %3 [0:2, 6:9] : (tensor<2x9xf32>) -> tensor<2x3xf32>
    %14 = stablehlo.slice %3 [0:2, 0:3] : (tensor<2x9xf32>) -> tensor<2x3xf32>
    %15 = stablehlo.slice %8 [0:2, 0:3] : (tensor<2x9xf32>) -> tensor<2x3xf32>
    %16 = stablehlo.add %14, %15 : tensor<2x3xf32>
    %17 = stablehlo.logistic %16 : tensor<2x3xf32>
    %18 = stablehlo.slice %8 [0:2, 6:9] : (tensor<2x9xf32>) -> tensor<2x3xf32>
    %19 = stablehlo.multiply %17, %18 : tensor<2x3xf32>
    %20 = stablehlo.add %13, %19 : tensor<2x3xf32>
    %21 = stablehlo.tanh %20 : tensor<2x3xf32>
    %22 = stablehlo.multiply %12, %21 : tensor<2x3xf32>
    %23 = stablehlo.multiply %11, %arg0 : tensor<2x3xf32>
    %24 = stablehlo.add %22, %23 : tensor<2x3xf32>
    %25 = stablehlo.tuple %24, %arg4, %arg2, %arg3, %arg1, %24, %arg0, %5, %18, %17, %11, %21, %12 {result_layout = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>], xla_shape = "(f32[2,3]{1,0}, f32[9,4]{1,0}, f32[9,3]{1,0}, f32[9]{0}, f32[9]{0}, /*index=5*/f32[2,3]{1,0}, f32[2,3]{1,0}, f32[3,9]{0,1}, f32[2,3]{1,0}, f32[2,3]{1,0}, /*index=10*/f32[2,3]{1,0}, f32[2,3]{1,0}, f32[2,3]{1,0})"} : tuple<tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>
    return %25 : tuple<tensor<2x3xf32>, tensor<9x4xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>
  }
  func.func private @scan.511(%arg0: tensor<i64>, %arg1: tensor<2x3xf32>, %arg2: tensor<9x3xf32>, %arg3: tensor<9x3xf32>, %arg4: tensor<9xf32>, %arg5: tensor<9xf32>, %arg6: tensor<6x2x3xf32>, %arg7: tensor<6x2x3xf32>, %arg8: tensor<6x2x3xf32>, %arg9: tensor<6x3x9xf32>, %arg10: tensor<6x3x9xf32>, %arg11: tensor<6x2x3xf32>, %arg12: tensor<6x2x3xf32>, %arg13: tensor<6x2x3xf32>, %arg14: tensor<6x2x3xf32>, %arg15: tensor<6x2x3xf32>) -> tuple<tensor<i64>, tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x3x9xf32>, tensor<6x3x9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %c_0 = stablehlo.constant dense<1> : tensor<i64>
    %c_1 = stablehlo.constant dense<6> : tensor<i64>
    %0:15 = stablehlo.while(%iterArg = %arg0, %iterArg_2 = %arg1, %iterArg_3 = %arg2, %iterArg_4 = %arg3, %iterArg_5 = %arg4, %iterArg_6 = %arg5, %iterArg_7 = %arg7, %iterArg_8 = %arg8, %iterArg_9 = %arg9, %iterArg_10 = %arg10, %iterArg_11 = %arg11, %iterArg_12 = %arg12, %iterArg_13 = %arg13, %iterArg_14 = %arg14, %iterArg_15 = %arg15) : tensor<i64>, tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x3x9xf32>, tensor<6x3x9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>
    cond {
      %2 = stablehlo.compare  LT, %iterArg, %c_1 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = stablehlo.add %iterArg, %c_0 : tensor<i64>
      %3 = stablehlo.dynamic_slice %arg6, %iterArg, %c, %c, sizes = [1, 2, 3] : (tensor<6x2x3xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<1x2x3xf32>
      %4 = stablehlo.reshape %3 : (tensor<1x2x3xf32>) -> tensor<2x3xf32>
      %5 = func.call @FnComputation.321(%iterArg_2, %iterArg_6, %iterArg_4, %iterArg_5, %iterArg_3, %4) {result_layout = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>], xla_shape = "(f32[2,3]{1,0}, f32[9,3]{1,0}, f32[9,3]{1,0}, f32[9]{0}, f32[9]{0}, /*index=5*/f32[2,3]{1,0}, f32[2,3]{1,0}, f32[3,9]{0,1}, f32[3,9]{0,1}, f32[2,3]{1,0}, /*index=10*/f32[2,3]{1,0}, f32[2,3]{1,0}, f32[2,3]{1,0}, f32[2,3]{1,0})"} : (tensor<2x3xf32>, tensor<9xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9x3xf32>, tensor<2x3xf32>) -> tuple<tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>
      %6 = stablehlo.get_tuple_element %5[0] : (tuple<tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
      %7 = stablehlo.get_tuple_element %5[1] : (tuple<tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<9x3xf32>
      %8 = stablehlo.get_tuple_element %5[2] : (tuple<tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<9x3xf32>
      %9 = stablehlo.get_tuple_element %5[3] : (tuple<tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<9xf32>
      %10 = stablehlo.get_tuple_element %5[4] : (tuple<tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<9xf32>
      %11 = stablehlo.get_tuple_element %5[5] : (tuple<tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
      %12 = stablehlo.reshape %11 : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
      %13 = stablehlo.dynamic_update_slice %iterArg_7, %12, %iterArg, %c, %c : (tensor<6x2x3xf32>, tensor<1x2x3xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<6x2x3xf32>
      %14 = stablehlo.get_tuple_element %5[6] : (tuple<tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
      %15 = stablehlo.reshape %14 : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
      %16 = stablehlo.dynamic_update_slice %iterArg_8, %15, %iterArg, %c, %c : (tensor<6x2x3xf32>, tensor<1x2x3xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<6x2x3xf32>
      %17 = stablehlo.get_tuple_element %5[7] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[3,9]{0,1}"} : (tuple<tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<3x9xf32>
      %18 = stablehlo.reshape %17 : (tensor<3x9xf32>) -> tensor<1x3x9xf32>
      %19 = stablehlo.dynamic_update_slice %iterArg_9, %18, %iterArg, %c, %c : (tensor<6x3x9xf32>, tensor<1x3x9xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<6x3x9xf32>
      %20 = stablehlo.get_tuple_element %5[8] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[3,9]{0,1}"} : (tuple<tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<3x9xf32>
      %21 = stablehlo.reshape %20 : (tensor<3x9xf32>) -> tensor<1x3x9xf32>
      %22 = stablehlo.dynamic_update_slice %iterArg_10, %21, %iterArg, %c, %c : (tensor<6x3x9xf32>, tensor<1x3x9xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<6x3x9xf32>
      %23 = stablehlo.get_tuple_element %5[9] : (tuple<tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
      %24 = stablehlo.reshape %23 : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
      %25 = stablehlo.dynamic_update_slice %iterArg_11, %24, %iterArg, %c, %c : (tensor<6x2x3xf32>, tensor<1x2x3xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<6x2x3xf32>
      %26 = stablehlo.get_tuple_element %5[10] : (tuple<tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
      %27 = stablehlo.reshape %26 : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
      %28 = stablehlo.dynamic_update_slice %iterArg_12, %27, %iterArg, %c, %c : (tensor<6x2x3xf32>, tensor<1x2x3xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<6x2x3xf32>
      %29 = stablehlo.get_tuple_element %5[11] : (tuple<tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
      %30 = stablehlo.reshape %29 : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
      %31 = stablehlo.dynamic_update_slice %iterArg_13, %30, %iterArg, %c, %c : (tensor<6x2x3xf32>, tensor<1x2x3xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<6x2x3xf32>
      %32 = stablehlo.get_tuple_element %5[12] : (tuple<tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
      %33 = stablehlo.reshape %32 : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
      %34 = stablehlo.dynamic_update_slice %iterArg_14, %33, %iterArg, %c, %c : (tensor<6x2x3xf32>, tensor<1x2x3xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<6x2x3xf32>
      %35 = stablehlo.get_tuple_element %5[13] : (tuple<tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
      %36 = stablehlo.reshape %35 : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
      %37 = stablehlo.dynamic_update_slice %iterArg_15, %36, %iterArg, %c, %c : (tensor<6x2x3xf32>, tensor<1x2x3xf32>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<6x2x3xf32>
      stablehlo.return %2, %6, %7, %8, %9, %10, %13, %16, %19, %22, %25, %28, %31, %34, %37 : tensor<i64>, tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x3x9xf32>, tensor<6x3x9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>
    }
    %1 = stablehlo.tuple %0#0, %0#1, %0#2, %0#3, %0#4, %0#5, %arg6, %0#6, %0#7, %0#8, %0#9, %0#10, %0#11, %0#12, %0#13, %0#14 {xla_shape = "(s64[], f32[2,3]{1,0}, f32[9,3]{1,0}, f32[9,3]{1,0}, f32[9]{0}, /*index=5*/f32[9]{0}, f32[6,2,3]{2,1,0}, f32[6,2,3]{2,1,0}, f32[6,2,3]{2,1,0}, f32[6,3,9]{2,1,0}, /*index=10*/f32[6,3,9]{2,1,0}, f32[6,2,3]{2,1,0}, f32[6,2,3]{2,1,0}, f32[6,2,3]{2,1,0}, f32[6,2,3]{2,1,0}, /*index=15*/f32[6,2,3]{2,1,0})"} : tuple<tensor<i64>, tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x3x9xf32>, tensor<6x3x9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>>
    return %1 : tuple<tensor<i64>, tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x3x9xf32>, tensor<6x3x9xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>, tensor<6x2x3xf32>>
  }
  func.func private @FnComputation.321(%arg0: tensor<2x3xf32>, %arg1: tensor<9xf32>, %arg2: tensor<9x3xf32>, %arg3: tensor<9xf32>, %arg4: tensor<9x3xf32>, %arg5: tensor<2x3xf32>) -> tuple<tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<2x3xf32>
    %0 = stablehlo.transpose %arg4, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[3,9]{0,1}"} : (tensor<9x3xf32>) -> tensor<3x9xf32>
    %1 = stablehlo.dot_general %arg5, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x9xf32>) -> tensor<2x9xf32>
    %2 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<9xf32>) -> tensor<2x9xf32>
    %3 = stablehlo.add %1, %2 : tensor<2x9xf32>
    %4 = stablehlo.slice %3 [0:2, 3:6] : (tensor<2x9xf32>) -> tensor<2x3xf32>
    %5 = stablehlo.transpose %arg2, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[3,9]{0,1}"} : (tensor<9x3xf32>) -> tensor<3x9xf32>
    %6 = stablehlo.dot_general %arg0, %5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x9xf32>) -> tensor<2x9xf32>
    %7 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<9xf32>) -> tensor<2x9xf32>
    %8 = stablehlo.add %6, %7 : tensor<2x9xf32>
    %9 = stablehlo.slice %8 [0:2, 3:6] : (tensor<2x9xf32>) -> tensor<2x3xf32>
    %10 = stablehlo.add %4, %9 : tensor<2x3xf32>
    %11 = stablehlo.logistic %10 : tensor<2x3xf32>
    %12 = stablehlo.subtract %cst, %11 : tensor<2x3xf32>
    %13 = stablehlo.slice %3 [0:2, 6:9] : (tensor<2x9xf32>) -> tensor<2x3xf32>
    %14 = stablehlo.slice %3 [0:2, 0:3] : (tensor<2x9xf32>) -> tensor<2x3xf32>
    %15 = stablehlo.slice %8 [0:2, 0:3] : (tensor<2x9xf32>) -> tensor<2x3xf32>
    %16 = stablehlo.add %14, %15 : tensor<2x3xf32>
    %17 = stablehlo.logistic %16 : tensor<2x3xf32>
    %18 = stablehlo.slice %8 [0:2, 6:9] : (tensor<2x9xf32>) -> tensor<2x3xf32>
    %19 = stablehlo.multiply %17, %18 : tensor<2x3xf32>
    %20 = stablehlo.add %13, %19 : tensor<2x3xf32>
    %21 = stablehlo.tanh %20 : tensor<2x3xf32>
    %22 = stablehlo.multiply %12, %21 : tensor<2x3xf32>
    %23 = stablehlo.multiply %11, %arg0 : tensor<2x3xf32>
    %24 = stablehlo.add %22, %23 : tensor<2x3xf32>
    %25 = stablehlo.tuple %24, %arg4, %arg2, %arg3, %arg1, %24, %arg0, %0, %5, %18, %17, %11, %21, %12 {result_layout = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>], xla_shape = "(f32[2,3]{1,0}, f32[9,3]{1,0}, f32[9,3]{1,0}, f32[9]{0}, f32[9]{0}, /*index=5*/f32[2,3]{1,0}, f32[2,3]{1,0}, f32[3,9]{0,1}, f32[3,9]{0,1}, f32[2,3]{1,0}, /*index=10*/f32[2,3]{1,0}, f32[2,3]{1,0}, f32[2,3]{1,0}, f32[2,3]{1,0})"} : tuple<tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>
    return %25 : tuple<tensor<2x3xf32>, tensor<9x3xf32>, tensor<9x3xf32>, tensor<9xf32>, tensor<9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x9xf32>, tensor<3x9xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>>
  }
}
