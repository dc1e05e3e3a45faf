module @IrToHlo.540 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<2x6xf32>, %arg1: tensor<3x6xi64>, %arg2: tensor<24xf32>, %arg3: tensor<24x5xf32>, %arg4: tensor<3x7x5xf32>, %arg5: tensor<24xf32>, %arg6: tensor<24x6xf32>, %arg7: tensor<3x6xi64>, %arg8: tensor<3x6xi64>, %arg9: tensor<3x6xi64>, %arg10: tensor<3x6xi64>, %arg11: tensor<3x6xi64>, %arg12: tensor<3x6xi64>, %arg13: tensor<3x6xi64>, %arg14: tensor<3x6xi64>, %arg15: tensor<3x6xi64>, %arg16: tensor<3x6xi64>, %arg17: tensor<3x6xi64>, %arg18: tensor<3x6xi64>, %arg19: tensor<3x6xi64>, %arg20: tensor<3x6xi64>, %arg21: tensor<3x6xi64>, %arg22: tensor<3x6xi64>, %arg23: tensor<3x6xi64>, %arg24: tensor<3x6xi64>, %arg25: tensor<3x6xi64>, %arg26: tensor<3x6xi64>) -> tensor<3x2xf32> {
    %c = stablehlo.constant dense<72> : tensor<18xi64>
    %c_0 = stablehlo.constant dense<0> : tensor<18xi64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<3x6xf32>
    %0 = stablehlo.transpose %arg6, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[6,24]{0,1}"} : (tensor<24x6xf32>) -> tensor<6x24xf32>
    %1 = stablehlo.dot_general %cst, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x24xf32>) -> tensor<3x24xf32>
    %2 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<24xf32>) -> tensor<3x24xf32>
    %3 = stablehlo.add %1, %2 : tensor<3x24xf32>
    %4 = stablehlo.transpose %arg4, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[7,3,5]{2,0,1}"} : (tensor<3x7x5xf32>) -> tensor<7x3x5xf32>
    %5 = stablehlo.slice %4 [0:1, 0:3, 0:5] : (tensor<7x3x5xf32>) -> tensor<1x3x5xf32>
    %6 = stablehlo.reshape %5 : (tensor<1x3x5xf32>) -> tensor<3x5xf32>
    %7 = stablehlo.transpose %arg3, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[5,24]{0,1}"} : (tensor<24x5xf32>) -> tensor<5x24xf32>
    %8 = stablehlo.dot_general %6, %7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x5xf32>, tensor<5x24xf32>) -> tensor<3x24xf32>
    %9 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<24xf32>) -> tensor<3x24xf32>
    %10 = stablehlo.add %8, %9 : tensor<3x24xf32>
    %11 = stablehlo.add %3, %10 : tensor<3x24xf32>
    %12 = stablehlo.reshape %11 : (tensor<3x24xf32>) -> tensor<72xf32>
    %13 = stablehlo.reshape %arg14 : (tensor<3x6xi64>) -> tensor<18xi64>
    %14 = stablehlo.compare  GE, %13, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %15 = stablehlo.add %13, %c : tensor<18xi64>
    %16 = stablehlo.select %14, %13, %15 : tensor<18xi1>, tensor<18xi64>
    %17 = stablehlo.convert %16 : (tensor<18xi64>) -> tensor<18xui32>
    %18 = "stablehlo.gather"(%12, %17) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %19 = stablehlo.reshape %18 : (tensor<18xf32>) -> tensor<3x6xf32>
    %20 = stablehlo.logistic %19 : tensor<3x6xf32>
    %21 = stablehlo.reshape %arg13 : (tensor<3x6xi64>) -> tensor<18xi64>
    %22 = stablehlo.compare  GE, %21, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %23 = stablehlo.add %21, %c : tensor<18xi64>
    %24 = stablehlo.select %22, %21, %23 : tensor<18xi1>, tensor<18xi64>
    %25 = stablehlo.convert %24 : (tensor<18xi64>) -> tensor<18xui32>
    %26 = "stablehlo.gather"(%12, %25) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %27 = stablehlo.reshape %26 : (tensor<18xf32>) -> tensor<3x6xf32>
    %28 = stablehlo.logistic %27 : tensor<3x6xf32>
    %29 = stablehlo.multiply %28, %cst : tensor<3x6xf32>
    %30 = stablehlo.slice %11 [0:3, 0:6] : (tensor<3x24xf32>) -> tensor<3x6xf32>
    %31 = stablehlo.logistic %30 : tensor<3x6xf32>
    %32 = stablehlo.reshape %arg12 : (tensor<3x6xi64>) -> tensor<18xi64>
    %33 = stablehlo.compare  GE, %32, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %34 = stablehlo.add %32, %c : tensor<18xi64>
    %35 = stablehlo.select %33, %32, %34 : tensor<18xi1>, tensor<18xi64>
    %36 = stablehlo.convert %35 : (tensor<18xi64>) -> tensor<18xui32>
    %37 = "stablehlo.gather"(%12, %36) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %38 = stablehlo.reshape %37 : (tensor<18xf32>) -> tensor<3x6xf32>
    %39 = stablehlo.tanh %38 : tensor<3x6xf32>
    %40 = stablehlo.multiply %31, %39 : tensor<3x6xf32>
    %41 = stablehlo.add %29, %40 : tensor<3x6xf32>
    %42 = stablehlo.tanh %41 : tensor<3x6xf32>
    %43 = stablehlo.multiply %20, %42 : tensor<3x6xf32>
    %44 = stablehlo.reshape %43 : (tensor<3x6xf32>) -> tensor<1x3x6xf32>
    %45 = stablehlo.dot_general %43, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x24xf32>) -> tensor<3x24xf32>
    %46 = stablehlo.add %45, %2 : tensor<3x24xf32>
    %47 = stablehlo.slice %4 [1:2, 0:3, 0:5] : (tensor<7x3x5xf32>) -> tensor<1x3x5xf32>
    %48 = stablehlo.reshape %47 : (tensor<1x3x5xf32>) -> tensor<3x5xf32>
    %49 = stablehlo.dot_general %48, %7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x5xf32>, tensor<5x24xf32>) -> tensor<3x24xf32>
    %50 = stablehlo.add %49, %9 : tensor<3x24xf32>
    %51 = stablehlo.add %46, %50 : tensor<3x24xf32>
    %52 = stablehlo.reshape %51 : (tensor<3x24xf32>) -> tensor<72xf32>
    %53 = stablehlo.reshape %arg16 : (tensor<3x6xi64>) -> tensor<18xi64>
    %54 = stablehlo.compare  GE, %53, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %55 = stablehlo.add %53, %c : tensor<18xi64>
    %56 = stablehlo.select %54, %53, %55 : tensor<18xi1>, tensor<18xi64>
    %57 = stablehlo.convert %56 : (tensor<18xi64>) -> tensor<18xui32>
    %58 = "stablehlo.gather"(%52, %57) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %59 = stablehlo.reshape %58 : (tensor<18xf32>) -> tensor<3x6xf32>
    %60 = stablehlo.logistic %59 : tensor<3x6xf32>
    %61 = stablehlo.reshape %arg15 : (tensor<3x6xi64>) -> tensor<18xi64>
    %62 = stablehlo.compare  GE, %61, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %63 = stablehlo.add %61, %c : tensor<18xi64>
    %64 = stablehlo.select %62, %61, %63 : tensor<18xi1>, tensor<18xi64>
    %65 = stablehlo.convert %64 : (tensor<18xi64>) -> tensor<18xui32>
    %66 = "stablehlo.gather"(%52, %65) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %67 = stablehlo.reshape %66 : (tensor<18xf32>) -> tensor<3x6xf32>
    %68 = stablehlo.logistic %67 : tensor<3x6xf32>
    %69 = stablehlo.multiply %68, %41 : tensor<3x6xf32>
    %70 = stablehlo.slice %51 [0:3, 0:6] : (tensor<3x24xf32>) -> tensor<3x6xf32>
    %71 = stablehlo.logistic %70 : tensor<3x6xf32>
    %72 = stablehlo.reshape %arg11 : (tensor<3x6xi64>) -> tensor<18xi64>
    %73 = stablehlo.compare  GE, %72, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %74 = stablehlo.add %72, %c : tensor<18xi64>
    %75 = stablehlo.select %73, %72, %74 : tensor<18xi1>, tensor<18xi64>
    %76 = stablehlo.convert %75 : (tensor<18xi64>) -> tensor<18xui32>
    %77 = "stablehlo.gather"(%52, %76) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %78 = stablehlo.reshape %77 : (tensor<18xf32>) -> tensor<3x6xf32>
    %79 = stablehlo.tanh %78 : tensor<3x6xf32>
    %80 = stablehlo.multiply %71, %79 : tensor<3x6xf32>
    %81 = stablehlo.add %69, %80 : tensor<3x6xf32>
    %82 = stablehlo.tanh %81 : tensor<3x6xf32>
    %83 = stablehlo.multiply %60, %82 : tensor<3x6xf32>
    %84 = stablehlo.reshape %83 : (tensor<3x6xf32>) -> tensor<1x3x6xf32>
    %85 = stablehlo.dot_general %83, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x24xf32>) -> tensor<3x24xf32>
    %86 = stablehlo.add %85, %2 : tensor<3x24xf32>
    %87 = stablehlo.slice %4 [2:3, 0:3, 0:5] : (tensor<7x3x5xf32>) -> tensor<1x3x5xf32>
    %88 = stablehlo.reshape %87 : (tensor<1x3x5xf32>) -> tensor<3x5xf32>
    %89 = stablehlo.dot_general %88, %7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x5xf32>, tensor<5x24xf32>) -> tensor<3x24xf32>
    %90 = stablehlo.add %89, %9 : tensor<3x24xf32>
    %91 = stablehlo.add %86, %90 : tensor<3x24xf32>
    %92 = stablehlo.reshape %91 : (tensor<3x24xf32>) -> tensor<72xf32>
    %93 = stablehlo.reshape %arg18 : (tensor<3x6xi64>) -> tensor<18xi64>
    %94 = stablehlo.compare  GE, %93, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %95 = stablehlo.add %93, %c : tensor<18xi64>
    %96 = stablehlo.select %94, %93, %95 : tensor<18xi1>, tensor<18xi64>
    %97 = stablehlo.convert %96 : (tensor<18xi64>) -> tensor<18xui32>
    %98 = "stablehlo.gather"(%92, %97) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %99 = stablehlo.reshape %98 : (tensor<18xf32>) -> tensor<3x6xf32>
    %100 = stablehlo.logistic %99 : tensor<3x6xf32>
    %101 = stablehlo.reshape %arg17 : (tensor<3x6xi64>) -> tensor<18xi64>
    %102 = stablehlo.compare  GE, %101, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %103 = stablehlo.add %101, %c : tensor<18xi64>
    %104 = stablehlo.select %102, %101, %103 : tensor<18xi1>, tensor<18xi64>
    %105 = stablehlo.convert %104 : (tensor<18xi64>) -> tensor<18xui32>
    %106 = "stablehlo.gather"(%92, %105) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %107 = stablehlo.reshape %106 : (tensor<18xf32>) -> tensor<3x6xf32>
    %108 = stablehlo.logistic %107 : tensor<3x6xf32>
    %109 = stablehlo.multiply %108, %81 : tensor<3x6xf32>
    %110 = stablehlo.slice %91 [0:3, 0:6] : (tensor<3x24xf32>) -> tensor<3x6xf32>
    %111 = stablehlo.logistic %110 : tensor<3x6xf32>
    %112 = stablehlo.reshape %arg10 : (tensor<3x6xi64>) -> tensor<18xi64>
    %113 = stablehlo.compare  GE, %112, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %114 = stablehlo.add %112, %c : tensor<18xi64>
    %115 = stablehlo.select %113, %112, %114 : tensor<18xi1>, tensor<18xi64>
    %116 = stablehlo.convert %115 : (tensor<18xi64>) -> tensor<18xui32>
    %117 = "stablehlo.gather"(%92, %116) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %118 = stablehlo.reshape %117 : (tensor<18xf32>) -> tensor<3x6xf32>
    %119 = stablehlo.tanh %118 : tensor<3x6xf32>
    %120 = stablehlo.multiply %111, %119 : tensor<3x6xf32>
    %121 = stablehlo.add %109, %120 : tensor<3x6xf32>
    %122 = stablehlo.tanh %121 : tensor<3x6xf32>
    %123 = stablehlo.multiply %100, %122 : tensor<3x6xf32>
    %124 = stablehlo.reshape %123 : (tensor<3x6xf32>) -> tensor<1x3x6xf32>
    %125 = stablehlo.dot_general %123, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x24xf32>) -> tensor<3x24xf32>
    %126 = stablehlo.add %125, %2 : tensor<3x24xf32>
    %127 = stablehlo.slice %4 [3:4, 0:3, 0:5] : (tensor<7x3x5xf32>) -> tensor<1x3x5xf32>
    %128 = stablehlo.reshape %127 : (tensor<1x3x5xf32>) -> tensor<3x5xf32>
    %129 = stablehlo.dot_general %128, %7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x5xf32>, tensor<5x24xf32>) -> tensor<3x24xf32>
    %130 = stablehlo.add %129, %9 : tensor<3x24xf32>
    %131 = stablehlo.add %126, %130 : tensor<3x24xf32>
    %132 = stablehlo.reshape %131 : (tensor<3x24xf32>) -> tensor<72xf32>
    %133 = stablehlo.reshape %arg20 : (tensor<3x6xi64>) -> tensor<18xi64>
    %134 = stablehlo.compare  GE, %133, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %135 = stablehlo.add %133, %c : tensor<18xi64>
    %136 = stablehlo.select %134, %133, %135 : tensor<18xi1>, tensor<18xi64>
    %137 = stablehlo.convert %136 : (tensor<18xi64>) -> tensor<18xui32>
    %138 = "stablehlo.gather"(%132, %137) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %139 = stablehlo.reshape %138 : (tensor<18xf32>) -> tensor<3x6xf32>
    %140 = stablehlo.logistic %139 : tensor<3x6xf32>
    %141 = stablehlo.reshape %arg19 : (tensor<3x6xi64>) -> tensor<18xi64>
    %142 = stablehlo.compare  GE, %141, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %143 = stablehlo.add %141, %c : tensor<18xi64>
    %144 = stablehlo.select %142, %141, %143 : tensor<18xi1>, tensor<18xi64>
    %145 = stablehlo.convert %144 : (tensor<18xi64>) -> tensor<18xui32>
    %146 = "stablehlo.gather"(%132, %145) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %147 = stablehlo.reshape %146 : (tensor<18xf32>) -> tensor<3x6xf32>
    %148 = stablehlo.logistic %147 : tensor<3x6xf32>
    %149 = stablehlo.multiply %148, %121 : tensor<3x6xf32>
    %150 = stablehlo.slice %131 [0:3, 0:6] : (tensor<3x24xf32>) -> tensor<3x6xf32>
    %151 = stablehlo.logistic %150 : tensor<3x6xf32>
    %152 = stablehlo.reshape %arg9 : (tensor<3x6xi64>) -> tensor<18xi64>
    %153 = stablehlo.compare  GE, %152, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %154 = stablehlo.add %152, %c : tensor<18xi64>
    %155 = stablehlo.select %153, %152, %154 : tensor<18xi1>, tensor<18xi64>
    %156 = stablehlo.convert %155 : (tensor<18xi64>) -> tensor<18xui32>
    %157 = "stablehlo.gather"(%132, %156) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %158 = stablehlo.reshape %157 : (tensor<18xf32>) -> tensor<3x6xf32>
    %159 = stablehlo.tanh %158 : tensor<3x6xf32>
    %160 = stablehlo.multiply %151, %159 : tensor<3x6xf32>
    %161 = stablehlo.add %149, %160 : tensor<3x6xf32>
    %162 = stablehlo.tanh %161 : tensor<3x6xf32>
    %163 = stablehlo.multiply %140, %162 : tensor<3x6xf32>
    %164 = stablehlo.reshape %163 : (tensor<3x6xf32>) -> tensor<1x3x6xf32>
    %165 = stablehlo.dot_general %163, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x24xf32>) -> tensor<3x24xf32>
    %166 = stablehlo.add %165, %2 : tensor<3x24xf32>
    %167 = stablehlo.slice %4 [4:5, 0:3, 0:5] : (tensor<7x3x5xf32>) -> tensor<1x3x5xf32>
    %168 = stablehlo.reshape %167 : (tensor<1x3x5xf32>) -> tensor<3x5xf32>
    %169 = stablehlo.dot_general %168, %7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x5xf32>, tensor<5x24xf32>) -> tensor<3x24xf32>
    %170 = stablehlo.add %169, %9 : tensor<3x24xf32>
    %171 = stablehlo.add %166, %170 : tensor<3x24xf32>
    %172 = stablehlo.reshape %171 : (tensor<3x24xf32>) -> tensor<72xf32>
    %173 = stablehlo.reshape %arg22 : (tensor<3x6xi64>) -> tensor<18xi64>
    %174 = stablehlo.compare  GE, %173, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %175 = stablehlo.add %173, %c : tensor<18xi64>
    %176 = stablehlo.select %174, %173, %175 : tensor<18xi1>, tensor<18xi64>
    %177 = stablehlo.convert %176 : (tensor<18xi64>) -> tensor<18xui32>
    %178 = "stablehlo.gather"(%172, %177) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %179 = stablehlo.reshape %178 : (tensor<18xf32>) -> tensor<3x6xf32>
    %180 = stablehlo.logistic %179 : tensor<3x6xf32>
    %181 = stablehlo.reshape %arg21 : (tensor<3x6xi64>) -> tensor<18xi64>
    %182 = stablehlo.compare  GE, %181, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %183 = stablehlo.add %181, %c : tensor<18xi64>
    %184 = stablehlo.select %182, %181, %183 : tensor<18xi1>, tensor<18xi64>
    %185 = stablehlo.convert %184 : (tensor<18xi64>) -> tensor<18xui32>
    %186 = "stablehlo.gather"(%172, %185) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %187 = stablehlo.reshape %186 : (tensor<18xf32>) -> tensor<3x6xf32>
    %188 = stablehlo.logistic %187 : tensor<3x6xf32>
    %189 = stablehlo.multiply %188, %161 : tensor<3x6xf32>
    %190 = stablehlo.slice %171 [0:3, 0:6] : (tensor<3x24xf32>) -> tensor<3x6xf32>
    %191 = stablehlo.logistic %190 : tensor<3x6xf32>
    %192 = stablehlo.reshape %arg8 : (tensor<3x6xi64>) -> tensor<18xi64>
    %193 = stablehlo.compare  GE, %192, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %194 = stablehlo.add %192, %c : tensor<18xi64>
    %195 = stablehlo.select %193, %192, %194 : tensor<18xi1>, tensor<18xi64>
    %196 = stablehlo.convert %195 : (tensor<18xi64>) -> tensor<18xui32>
    %197 = "stablehlo.gather"(%172, %196) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %198 = stablehlo.reshape %197 : (tensor<18xf32>) -> tensor<3x6xf32>
    %199 = stablehlo.tanh %198 : tensor<3x6xf32>
    %200 = stablehlo.multiply %191, %199 : tensor<3x6xf32>
    %201 = stablehlo.add %189, %200 : tensor<3x6xf32>
    %202 = stablehlo.tanh %201 : tensor<3x6xf32>
    %203 = stablehlo.multiply %180, %202 : tensor<3x6xf32>
    %204 = stablehlo.reshape %203 : (tensor<3x6xf32>) -> tensor<1x3x6xf32>
    %205 = stablehlo.dot_general %203, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x24xf32>) -> tensor<3x24xf32>
    %206 = stablehlo.add %205, %2 : tensor<3x24xf32>
    %207 = stablehlo.slice %4 [5:6, 0:3, 0:5] : (tensor<7x3x5xf32>) -> tensor<1x3x5xf32>
    %208 = stablehlo.reshape %207 : (tensor<1x3x5xf32>) -> tensor<3x5xf32>
    %209 = stablehlo.dot_general %208, %7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x5xf32>, tensor<5x24xf32>) -> tensor<3x24xf32>
    %210 = stablehlo.add %209, %9 : tensor<3x24xf32>
    %211 = stablehlo.add %206, %210 : tensor<3x24xf32>
    %212 = stablehlo.reshape %211 : (tensor<3x24xf32>) -> tensor<72xf32>
    %213 = stablehlo.reshape %arg24 : (tensor<3x6xi64>) -> tensor<18xi64>
    %214 = stablehlo.compare  GE, %213, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %215 = stablehlo.add %213, %c : tensor<18xi64>
    %216 = stablehlo.select %214, %213, %215 : tensor<18xi1>, tensor<18xi64>
    %217 = stablehlo.convert %216 : (tensor<18xi64>) -> tensor<18xui32>
    %218 = "stablehlo.gather"(%212, %217) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %219 = stablehlo.reshape %218 : (tensor<18xf32>) -> tensor<3x6xf32>
    %220 = stablehlo.logistic %219 : tensor<3x6xf32>
    %221 = stablehlo.reshape %arg23 : (tensor<3x6xi64>) -> tensor<18xi64>
    %222 = stablehlo.compare  GE, %221, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %223 = stablehlo.add %221, %c : tensor<18xi64>
    %224 = stablehlo.select %222, %221, %223 : tensor<18xi1>, tensor<18xi64>
    %225 = stablehlo.convert %224 : (tensor<18xi64>) -> tensor<18xui32>
    %226 = "stablehlo.gather"(%212, %225) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %227 = stablehlo.reshape %226 : (tensor<18xf32>) -> tensor<3x6xf32>
    %228 = stablehlo.logistic %227 : tensor<3x6xf32>
    %229 = stablehlo.multiply %228, %201 : tensor<3x6xf32>
    %230 = stablehlo.slice %211 [0:3, 0:6] : (tensor<3x24xf32>) -> tensor<3x6xf32>
    %231 = stablehlo.logistic %230 : tensor<3x6xf32>
    %232 = stablehlo.reshape %arg7 : (tensor<3x6xi64>) -> tensor<18xi64>
    %233 = stablehlo.compare  GE, %232, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %234 = stablehlo.add %232, %c : tensor<18xi64>
    %235 = stablehlo.select %233, %232, %234 : tensor<18xi1>, tensor<18xi64>
    %236 = stablehlo.convert %235 : (tensor<18xi64>) -> tensor<18xui32>
    %237 = "stablehlo.gather"(%212, %236) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %238 = stablehlo.reshape %237 : (tensor<18xf32>) -> tensor<3x6xf32>
    %239 = stablehlo.tanh %238 : tensor<3x6xf32>
    %240 = stablehlo.multiply %231, %239 : tensor<3x6xf32>
    %241 = stablehlo.add %229, %240 : tensor<3x6xf32>
    %242 = stablehlo.tanh %241 : tensor<3x6xf32>
    %243 = stablehlo.multiply %220, %242 : tensor<3x6xf32>
    %244 = stablehlo.reshape %243 : (tensor<3x6xf32>) -> tensor<1x3x6xf32>
    %245 = stablehlo.dot_general %243, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x24xf32>) -> tensor<3x24xf32>
    %246 = stablehlo.add %245, %2 : tensor<3x24xf32>
    %247 = stablehlo.slice %4 [6:7, 0:3, 0:5] : (tensor<7x3x5xf32>) -> tensor<1x3x5xf32>
    %248 = stablehlo.reshape %247 : (tensor<1x3x5xf32>) -> tensor<3x5xf32>
    %249 = stablehlo.dot_general %248, %7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x5xf32>, tensor<5x24xf32>) -> tensor<3x24xf32>
    %250 = stablehlo.add %249, %9 : tensor<3x24xf32>
    %251 = stablehlo.add %246, %250 : tensor<3x24xf32>
    %252 = stablehlo.reshape %251 : (tensor<3x24xf32>) -> tensor<72xf32>
    %253 = stablehlo.reshape %arg26 : (tensor<3x6xi64>) -> tensor<18xi64>
    %254 = stablehlo.compare  GE, %253, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %255 = stablehlo.add %253, %c : tensor<18xi64>
    %256 = stablehlo.select %254, %253, %255 : tensor<18xi1>, tensor<18xi64>
    %257 = stablehlo.convert %256 : (tensor<18xi64>) -> tensor<18xui32>
    %258 = "stablehlo.gather"(%252, %257) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %259 = stablehlo.reshape %258 : (tensor<18xf32>) -> tensor<3x6xf32>
    %260 = stablehlo.logistic %259 : tensor<3x6xf32>
    %261 = stablehlo.reshape %arg25 : (tensor<3x6xi64>) -> tensor<18xi64>
    %262 = stablehlo.compare  GE, %261, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %263 = stablehlo.add %261, %c : tensor<18xi64>
    %264 = stablehlo.select %262, %261, %263 : tensor<18xi1>, tensor<18xi64>
    %265 = stablehlo.convert %264 : (tensor<18xi64>) -> tensor<18xui32>
    %266 = "stablehlo.gather"(%252, %265) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %267 = stablehlo.reshape %266 : (tensor<18xf32>) -> tensor<3x6xf32>
    %268 = stablehlo.logistic %267 : tensor<3x6xf32>
    %269 = stablehlo.multiply %268, %241 : tensor<3x6xf32>
    %270 = stablehlo.slice %251 [0:3, 0:6] : (tensor<3x24xf32>) -> tensor<3x6xf32>
    %271 = stablehlo.logistic %270 : tensor<3x6xf32>
    %272 = stablehlo.reshape %arg1 : (tensor<3x6xi64>) -> tensor<18xi64>
    %273 = stablehlo.compare  GE, %272, %c_0 : (tensor<18xi64>, tensor<18xi64>) -> tensor<18xi1>
    %274 = stablehlo.add %272, %c : tensor<18xi64>
    %275 = stablehlo.select %273, %272, %274 : tensor<18xi1>, tensor<18xi64>
    %276 = stablehlo.convert %275 : (tensor<18xi64>) -> tensor<18xui32>
    %277 = "stablehlo.gather"(%252, %276) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<72xf32>, tensor<18xui32>) -> tensor<18xf32>
    %278 = stablehlo.reshape %277 : (tensor<18xf32>) -> tensor<3x6xf32>
    %279 = stablehlo.tanh %278 : tensor<3x6xf32>
    %280 = stablehlo.multiply %271, %279 : tensor<3x6xf32>
    %281 = stablehlo.add %269, %280 : tensor<3x6xf32>
    %282 = stablehlo.tanh %281 : tensor<3x6xf32>
    %283 = stablehlo.multiply %260, %282 : tensor<3x6xf32>
    %284 = stablehlo.reshape %283 : (tensor<3x6xf32>) -> tensor<1x3x6xf32>
    %285 = stablehlo.concatenate %44, %84, %124, %164, %204, %244, %284, dim = 0 : (tensor<1x3x6xf32>, tensor<1x3x6xf32>, tensor<1x3x6xf32>, tensor<1x3x6xf32>, tensor<1x3x6xf32>, tensor<1x3x6xf32>, tensor<1x3x6xf32>) -> tensor<7x3x6xf32>
    %286 = stablehlo.transpose %285, dims = [1, 0, 2] {result_layout = dense<[2, 0, 1]> : tensor<3xindex>, xla_shape = "f32[3,7,6]{2,0,1}"} : (tensor<7x3x6xf32>) -> tensor<3x7x6xf32>
    %287 = stablehlo.slice %286 [0:3, 6:7, 0:6] : (tensor<3x7x6xf32>) -> tensor<3x1x6xf32>
    %288 = stablehlo.reshape %287 : (tensor<3x1x6xf32>) -> tensor<3x6xf32>
    %289 = stablehlo.transpose %arg0, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[6,2]{0,1}"} : (tensor<2x6xf32>) -> tensor<6x2xf32>
    %290 = stablehlo.dot_general %288, %289, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x6xf32>, tensor<6x2xf32>) -> tensor<3x2xf32>
    return %290 : tensor<3x2xf32>
  }
}
