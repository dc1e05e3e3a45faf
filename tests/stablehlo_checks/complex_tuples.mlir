// complex, real, imag, complex arithmetic and abs; tuple and get_tuple_element; expected
// values worked out by hand.
func.func @complex() {
  %re = stablehlo.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %im = stablehlo.constant dense<[4.0, -1.0]> : tensor<2xf32>
  %z = stablehlo.complex %re, %im : tensor<2xcomplex<f32>>
  check.expect_eq_const %z, dense<[(3.0, 4.0), (0.0, -1.0)]> : tensor<2xcomplex<f32>>
  %zz = stablehlo.multiply %z, %z : tensor<2xcomplex<f32>>
  check.expect_almost_eq_const %zz, dense<[(-7.0, 24.0), (-1.0, 0.0)]> : tensor<2xcomplex<f32>>
  %a = stablehlo.abs %z : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  check.expect_almost_eq_const %a, dense<[5.0, 1.0]> : tensor<2xf32>
  %r = stablehlo.real %zz : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  check.expect_eq_const %r, dense<[-7.0, -1.0]> : tensor<2xf32>
  %i = stablehlo.imag %z : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  check.expect_eq %i, %im : tensor<2xf32>
  %q = stablehlo.divide %zz, %z : tensor<2xcomplex<f32>>
  check.expect_close %q, %z, max_ulp_difference = 2 : tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>
  func.return
}

// -----

func.func @tuples() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.constant dense<2.5> : tensor<f32>
  %t = stablehlo.tuple %a, %b : tuple<tensor<2xi32>, tensor<f32>>
  %n = stablehlo.tuple %t, %a : tuple<tuple<tensor<2xi32>, tensor<f32>>, tensor<2xi32>>
  %inner = stablehlo.get_tuple_element %n[0] : (tuple<tuple<tensor<2xi32>, tensor<f32>>, tensor<2xi32>>) -> tuple<tensor<2xi32>, tensor<f32>>
  %x = stablehlo.get_tuple_element %inner[1] : (tuple<tensor<2xi32>, tensor<f32>>) -> tensor<f32>
  check.expect_eq_const %x, dense<2.5> : tensor<f32>
  %y = stablehlo.get_tuple_element %n[1] : (tuple<tuple<tensor<2xi32>, tensor<f32>>, tensor<2xi32>>) -> tensor<2xi32>
  check.expect_eq %y, %a : tensor<2xi32>
  func.return
}
