// while, case, if and call, with checks inside loop bodies and branches; expected values
// worked out by hand.
func.func @while_sum() {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %ten = stablehlo.constant dense<10> : tensor<i32>
  %i, %sum = stablehlo.while(%iv = %zero, %acc = %zero) : tensor<i32>, tensor<i32>
  cond {
    %lt = stablehlo.compare LT, %iv, %ten : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %ok = stablehlo.compare LT, %iv, %ten : (tensor<i32>, tensor<i32>) -> tensor<i1>
    check.expect_eq_const %ok, dense<true> : tensor<i1>
    %next = stablehlo.add %iv, %one : tensor<i32>
    %acc2 = stablehlo.add %acc, %iv : tensor<i32>
    stablehlo.return %next, %acc2 : tensor<i32>, tensor<i32>
  }
  check.expect_eq_const %i, dense<10> : tensor<i32>
  check.expect_eq_const %sum, dense<45> : tensor<i32>
  func.return
}

// -----

func.func @case_and_if() {
  %idx = stablehlo.constant dense<1> : tensor<i32>
  %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %r = "stablehlo.case"(%idx) ({
    %n = stablehlo.negate %x : tensor<2xf32>
    stablehlo.return %n : tensor<2xf32>
  }, {
    %d = stablehlo.add %x, %x : tensor<2xf32>
    stablehlo.return %d : tensor<2xf32>
  }, {
    stablehlo.return %x : tensor<2xf32>
  }) : (tensor<i32>) -> tensor<2xf32>
  check.expect_eq_const %r, dense<[2.0, 4.0]> : tensor<2xf32>
  %out = stablehlo.constant dense<7> : tensor<i32>
  %r2 = "stablehlo.case"(%out) ({
    stablehlo.return %x : tensor<2xf32>
  }, {
    %n = stablehlo.negate %x : tensor<2xf32>
    stablehlo.return %n : tensor<2xf32>
  }) : (tensor<i32>) -> tensor<2xf32>
  check.expect_eq_const %r2, dense<[-1.0, -2.0]> : tensor<2xf32>
  %p = stablehlo.constant dense<false> : tensor<i1>
  %r3 = "stablehlo.if"(%p) ({
    stablehlo.return %x : tensor<2xf32>
  }, {
    %m = stablehlo.multiply %x, %x : tensor<2xf32>
    stablehlo.return %m : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  check.expect_eq_const %r3, dense<[1.0, 4.0]> : tensor<2xf32>
  func.return
}

// -----

func.func private @axpy(%a: tensor<f32>, %x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %ab = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<3xf32>
  %ax = stablehlo.multiply %ab, %x : tensor<3xf32>
  %r = stablehlo.add %ax, %y : tensor<3xf32>
  check.expect_almost_eq %r, %r : tensor<3xf32>
  return %r : tensor<3xf32>
}

func.func @main() {
  %a = stablehlo.constant dense<2.0> : tensor<f32>
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %y = stablehlo.constant dense<[0.5, 0.5, 0.5]> : tensor<3xf32>
  %r = call @axpy(%a, %x, %y) : (tensor<f32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  check.expect_almost_eq_const %r, dense<[2.5, 4.5, 6.5]> : tensor<3xf32>
  %s = func.call @axpy(%a, %r, %x) : (tensor<f32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  check.expect_almost_eq_const %s, dense<[6.0, 11.0, 16.0]> : tensor<3xf32>
  func.return
}
