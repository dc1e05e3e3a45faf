module @consts attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<3xf32>, tensor<2xbf16>, tensor<3xi8>, tensor<2xui64>, tensor<2xi1>, tensor<2xcomplex<f32>>, tensor<2x3xf32>, tensor<0xi32>, tensor<f32>, tensor<f64>, tensor<4xf32>, tensor<2xf8E4M3FN>) {
    %cst = stablehlo.constant dense<[1.000000e+00, -0.000000e+00, 0x7FC00000]> : tensor<3xf32>
    %cst_0 = stablehlo.constant dense<[1.000980e-01, 0xFF80]> : tensor<2xbf16>
    %c = stablehlo.constant dense<[-128, 0, 127]> : tensor<3xi8>
    %c_1 = stablehlo.constant dense<[18446744073709551615, 0]> : tensor<2xui64>
    %c_2 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
    %cst_3 = stablehlo.constant dense<[(1.000000e+00,-2.000000e+00), (5.000000e-01,0x7FC00000)]> : tensor<2xcomplex<f32>>
    %cst_4 = stablehlo.constant dense<[[1.500000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.250000e+00]]> : tensor<2x3xf32>
    %c_5 = stablehlo.constant dense<> : tensor<0xi32>
    %cst_6 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %cst_7 = stablehlo.constant dense<3.1415926535897931> : tensor<f64>
    %cst_8 = stablehlo.constant dense<[1.401300e-45, 3.40282347E+38, 0x4B800000, 0.797884583]> : tensor<4xf32>
    %cst_9 = stablehlo.constant dense<[5.000000e-01, 4.480000e+02]> : tensor<2xf8E4M3FN>
    return %cst, %cst_0, %c, %c_1, %c_2, %cst_3, %cst_4, %c_5, %cst_6, %cst_7, %cst_8, %cst_9 : tensor<3xf32>, tensor<2xbf16>, tensor<3xi8>, tensor<2xui64>, tensor<2xi1>, tensor<2xcomplex<f32>>, tensor<2x3xf32>, tensor<0xi32>, tensor<f32>, tensor<f64>, tensor<4xf32>, tensor<2xf8E4M3FN>
  }
}
