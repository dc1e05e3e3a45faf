module @IrToHlo.267 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<2x6xf32>, %arg1: tensor<24xf32>, %arg2: tensor<24x5xf32>, %arg3: tensor<3x7x5xf32>, %arg4: tensor<24xf32>, %arg5: tensor<24x6xf32>) -> tensor<3x2xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<1x3x6xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<3x6xf32>
    %0 = stablehlo.transpose %arg5, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[6,24]{0,1}"} : (tensor<24x6xf32>) -> tensor<6x24xf32>
    %1 = stablehlo.dot_general %cst_0, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x24xf32>) -> tensor<3x24xf32>
    %2 = stablehlo.broadcast_in_dim %arg4, dims = [1] : (tensor<24xf32>) -> tensor<3x24xf32>
    %3 = stablehlo.add %1, %2 : tensor<3x24xf32>
    %4 = stablehlo.reshape %3 : (tensor<3x24xf32>) -> tensor<1x3x24xf32>
    %5 = stablehlo.transpose %arg3, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[7,3,5]{2,0,1}"} : (tensor<3x7x5xf32>) -> tensor<7x3x5xf32>
    %6 = stablehlo.transpose %arg2, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[5,24]{0,1}"} : (tensor<24x5xf32>) -> tensor<5x24xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [1, 2] : (tensor<5x24xf32>) -> tensor<7x5x24xf32>
    %8 = stablehlo.dot_general %5, %7, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<7x3x5xf32>, tensor<7x5x24xf32>) -> tensor<7x3x24xf32>
    %9 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<24xf32>) -> tensor<7x3x24xf32>
    %10 = stablehlo.add %8, %9 : tensor<7x3x24xf32>
    %11 = stablehlo.slice %10 [0:1, 0:3, 0:24] : (tensor<7x3x24xf32>) -> tensor<1x3x24xf32>
    %12 = stablehlo.add %4, %11 : tensor<1x3x24xf32>
    %13 = stablehlo.slice %12 [0:1, 0:3, 18:24] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %14 = stablehlo.logistic %13 : tensor<1x3x6xf32>
    %15 = stablehlo.slice %12 [0:1, 0:3, 6:12] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %16 = stablehlo.logistic %15 : tensor<1x3x6xf32>
    %17 = stablehlo.multiply %16, %cst : tensor<1x3x6xf32>
    %18 = stablehlo.slice %12 [0:1, 0:3, 0:6] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %19 = stablehlo.logistic %18 : tensor<1x3x6xf32>
    %20 = stablehlo.slice %12 [0:1, 0:3, 12:18] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %21 = stablehlo.tanh %20 : tensor<1x3x6xf32>
    %22 = stablehlo.multiply %19, %21 : tensor<1x3x6xf32>
    %23 = stablehlo.add %17, %22 : tensor<1x3x6xf32>
    %24 = stablehlo.tanh %23 : tensor<1x3x6xf32>
    %25 = stablehlo.multiply %14, %24 : tensor<1x3x6xf32>
    %26 = stablehlo.reshape %25 : (tensor<1x3x6xf32>) -> tensor<3x6xf32>
    %27 = stablehlo.dot_general %26, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x24xf32>) -> tensor<3x24xf32>
    %28 = stablehlo.add %27, %2 : tensor<3x24xf32>
    %29 = stablehlo.reshape %28 : (tensor<3x24xf32>) -> tensor<1x3x24xf32>
    %30 = stablehlo.slice %10 [1:2, 0:3, 0:24] : (tensor<7x3x24xf32>) -> tensor<1x3x24xf32>
    %31 = stablehlo.add %29, %30 : tensor<1x3x24xf32>
    %32 = stablehlo.slice %31 [0:1, 0:3, 18:24] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %33 = stablehlo.logistic %32 : tensor<1x3x6xf32>
    %34 = stablehlo.slice %31 [0:1, 0:3, 6:12] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %35 = stablehlo.logistic %34 : tensor<1x3x6xf32>
    %36 = stablehlo.multiply %35, %23 : tensor<1x3x6xf32>
    %37 = stablehlo.slice %31 [0:1, 0:3, 0:6] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %38 = stablehlo.logistic %37 : tensor<1x3x6xf32>
    %39 = stablehlo.slice %31 [0:1, 0:3, 12:18] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %40 = stablehlo.tanh %39 : tensor<1x3x6xf32>
    %41 = stablehlo.multiply %38, %40 : tensor<1x3x6xf32>
    %42 = stablehlo.add %36, %41 : tensor<1x3x6xf32>
    %43 = stablehlo.tanh %42 : tensor<1x3x6xf32>
    %44 = stablehlo.multiply %33, %43 : tensor<1x3x6xf32>
    %45 = stablehlo.reshape %44 : (tensor<1x3x6xf32>) -> tensor<3x6xf32>
    %46 = stablehlo.dot_general %45, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x24xf32>) -> tensor<3x24xf32>
    %47 = stablehlo.add %46, %2 : tensor<3x24xf32>
    %48 = stablehlo.reshape %47 : (tensor<3x24xf32>) -> tensor<1x3x24xf32>
    %49 = stablehlo.slice %10 [2:3, 0:3, 0:24] : (tensor<7x3x24xf32>) -> tensor<1x3x24xf32>
    %50 = stablehlo.add %48, %49 : tensor<1x3x24xf32>
    %51 = stablehlo.slice %50 [0:1, 0:3, 18:24] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %52 = stablehlo.logistic %51 : tensor<1x3x6xf32>
    %53 = stablehlo.slice %50 [0:1, 0:3, 6:12] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %54 = stablehlo.logistic %53 : tensor<1x3x6xf32>
    %55 = stablehlo.multiply %54, %42 : tensor<1x3x6xf32>
    %56 = stablehlo.slice %50 [0:1, 0:3, 0:6] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %57 = stablehlo.logistic %56 : tensor<1x3x6xf32>
    %58 = stablehlo.slice %50 [0:1, 0:3, 12:18] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %59 = stablehlo.tanh %58 : tensor<1x3x6xf32>
    %60 = stablehlo.multiply %57, %59 : tensor<1x3x6xf32>
    %61 = stablehlo.add %55, %60 : tensor<1x3x6xf32>
    %62 = stablehlo.tanh %61 : tensor<1x3x6xf32>
    %63 = stablehlo.multiply %52, %62 : tensor<1x3x6xf32>
    %64 = stablehlo.reshape %63 : (tensor<1x3x6xf32>) -> tensor<3x6xf32>
    %65 = stablehlo.dot_general %64, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x24xf32>) -> tensor<3x24xf32>
    %66 = stablehlo.add %65, %2 : tensor<3x24xf32>
    %67 = stablehlo.reshape %66 : (tensor<3x24xf32>) -> tensor<1x3x24xf32>
    %68 = stablehlo.slice %10 [3:4, 0:3, 0:24] : (tensor<7x3x24xf32>) -> tensor<1x3x24xf32>
    %69 = stablehlo.add %67, %68 : tensor<1x3x24xf32>
    %70 = stablehlo.slice %69 [0:1, 0:3, 18:24] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %71 = stablehlo.logistic %70 : tensor<1x3x6xf32>
    %72 = stablehlo.slice %69 [0:1, 0:3, 6:12] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %73 = stablehlo.logistic %72 : tensor<1x3x6xf32>
    %74 = stablehlo.multiply %73, %61 : tensor<1x3x6xf32>
    %75 = stablehlo.slice %69 [0:1, 0:3, 0:6] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %76 = stablehlo.logistic %75 : tensor<1x3x6xf32>
    %77 = stablehlo.slice %69 [0:1, 0:3, 12:18] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %78 = stablehlo.tanh %77 : tensor<1x3x6xf32>
    %79 = stablehlo.multiply %76, %78 : tensor<1x3x6xf32>
    %80 = stablehlo.add %74, %79 : tensor<1x3x6xf32>
    %81 = stablehlo.tanh %80 : tensor<1x3x6xf32>
    %82 = stablehlo.multiply %71, %81 : tensor<1x3x6xf32>
    %83 = stablehlo.reshape %82 : (tensor<1x3x6xf32>) -> tensor<3x6xf32>
    %84 = stablehlo.dot_general %83, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x24xf32>) -> tensor<3x24xf32>
    %85 = stablehlo.add %84, %2 : tensor<3x24xf32>
    %86 = stablehlo.reshape %85 : (tensor<3x24xf32>) -> tensor<1x3x24xf32>
    %87 = stablehlo.slice %10 [4:5, 0:3, 0:24] : (tensor<7x3x24xf32>) -> tensor<1x3x24xf32>
    %88 = stablehlo.add %86, %87 : tensor<1x3x24xf32>
    %89 = stablehlo.slice %88 [0:1, 0:3, 18:24] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %90 = stablehlo.logistic %89 : tensor<1x3x6xf32>
    %91 = stablehlo.slice %88 [0:1, 0:3, 6:12] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %92 = stablehlo.logistic %91 : tensor<1x3x6xf32>
    %93 = stablehlo.multiply %92, %80 : tensor<1x3x6xf32>
    %94 = stablehlo.slice %88 [0:1, 0:3, 0:6] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %95 = stablehlo.logistic %94 : tensor<1x3x6xf32>
    %96 = stablehlo.slice %88 [0:1, 0:3, 12:18] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %97 = stablehlo.tanh %96 : tensor<1x3x6xf32>
    %98 = stablehlo.multiply %95, %97 : tensor<1x3x6xf32>
    %99 = stablehlo.add %93, %98 : tensor<1x3x6xf32>
    %100 = stablehlo.tanh %99 : tensor<1x3x6xf32>
    %101 = stablehlo.multiply %90, %100 : tensor<1x3x6xf32>
    %102 = stablehlo.reshape %101 : (tensor<1x3x6xf32>) -> tensor<3x6xf32>
    %103 = stablehlo.dot_general %102, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x24xf32>) -> tensor<3x24xf32>
    %104 = stablehlo.add %103, %2 : tensor<3x24xf32>
    %105 = stablehlo.reshape %104 : (tensor<3x24xf32>) -> tensor<1x3x24xf32>
    %106 = stablehlo.slice %10 [5:6, 0:3, 0:24] : (tensor<7x3x24xf32>) -> tensor<1x3x24xf32>
    %107 = stablehlo.add %105, %106 : tensor<1x3x24xf32>
    %108 = stablehlo.slice %107 [0:1, 0:3, 18:24] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %109 = stablehlo.logistic %108 : tensor<1x3x6xf32>
    %110 = stablehlo.slice %107 [0:1, 0:3, 6:12] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %111 = stablehlo.logistic %110 : tensor<1x3x6xf32>
    %112 = stablehlo.multiply %111, %99 : tensor<1x3x6xf32>
    %113 = stablehlo.slice %107 [0:1, 0:3, 0:6] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %114 = stablehlo.logistic %113 : tensor<1x3x6xf32>
    %115 = stablehlo.slice %107 [0:1, 0:3, 12:18] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %116 = stablehlo.tanh %115 : tensor<1x3x6xf32>
    %117 = stablehlo.multiply %114, %116 : tensor<1x3x6xf32>
    %118 = stablehlo.add %112, %117 : tensor<1x3x6xf32>
    %119 = stablehlo.tanh %118 : tensor<1x3x6xf32>
    %120 = stablehlo.multiply %109, %119 : tensor<1x3x6xf32>
    %121 = stablehlo.reshape %120 : (tensor<1x3x6xf32>) -> tensor<3x6xf32>
    %122 = stablehlo.dot_general %121, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x24xf32>) -> tensor<3x24xf32>
    %123 = stablehlo.add %122, %2 : tensor<3x24xf32>
    %124 = stablehlo.reshape %123 : (tensor<3x24xf32>) -> tensor<1x3x24xf32>
    %125 = stablehlo.slice %10 [6:7, 0:3, 0:24] : (tensor<7x3x24xf32>) -> tensor<1x3x24xf32>
    %126 = stablehlo.add %124, %125 : tensor<1x3x24xf32>
    %127 = stablehlo.slice %126 [0:1, 0:3, 18:24] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %128 = stablehlo.logistic %127 : tensor<1x3x6xf32>
    %129 = stablehlo.slice %126 [0:1, 0:3, 6:12] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %130 = stablehlo.logistic %129 : tensor<1x3x6xf32>
    %131 = stablehlo.multiply %130, %118 : tensor<1x3x6xf32>
    %132 = stablehlo.slice %126 [0:1, 0:3, 0:6] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %133 = stablehlo.logistic %132 : tensor<1x3x6xf32>
    %134 = stablehlo.slice %126 [0:1, 0:3, 12:18] : (tensor<1x3x24xf32>) -> tensor<1x3x6xf32>
    %135 = stablehlo.tanh %134 : tensor<1x3x6xf32>
    %136 = stablehlo.multiply %133, %135 : tensor<1x3x6xf32>
    %137 = stablehlo.add %131, %136 : tensor<1x3x6xf32>
    %138 = stablehlo.tanh %137 : tensor<1x3x6xf32>
    %139 = stablehlo.multiply %128, %138 : tensor<1x3x6xf32>
    %140 = stablehlo.concatenate %25, %44, %63, %82, %101, %120, %139, dim = 0 : (tensor<1x3x6xf32>, tensor<1x3x6xf32>, tensor<1x3x6xf32>, tensor<1x3x6xf32>, tensor<1x3x6xf32>, tensor<1x3x6xf32>, tensor<1x3x6xf32>) -> tensor<7x3x6xf32>
    %141 = stablehlo.transpose %140, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[3,7,6]{2,0,1}"} : (tensor<7x3x6xf32>) -> tensor<3x7x6xf32>
    %142 = stablehlo.slice %141 [0:3, 6:7, 0:6] : (tensor<3x7x6xf32>) -> tensor<3x1x6xf32>
    %143 = stablehlo.reshape %142 : (tensor<3x1x6xf32>) -> tensor<3x6xf32>
    %144 = stablehlo.transpose %arg0, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[6,2]{0,1}"} : (tensor<2x6xf32>) -> tensor<6x2xf32>
    %145 = stablehlo.dot_general %143, %144, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x2xf32>) -> tensor<3x2xf32>
    return %145 : tensor<3x2xf32>
  }
}
