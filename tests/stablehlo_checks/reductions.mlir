// reduce (one and two operands), reduce_window, select_and_scatter, sort; expected values
// worked out by hand.
func.func @reduce() {
  %i = stablehlo.iota dim = 0 : tensor<6xi32>
  %m = stablehlo.reshape %i : (tensor<6xi32>) -> tensor<2x3xi32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %rows = stablehlo.reduce(%m init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
  check.expect_eq_const %rows, dense<[3, 12]> : tensor<2xi32>
  %ninf = stablehlo.constant dense<-2147483648> : tensor<i32>
  %cols = stablehlo.reduce(%m init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<2x3xi32>, tensor<i32>) -> tensor<3xi32>
  check.expect_eq_const %cols, dense<[3, 4, 5]> : tensor<3xi32>
  func.return
}

// -----

func.func @argmax() {
  %v = stablehlo.constant dense<[3.0, 7.0, 7.0, -1.0]> : tensor<4xf32>
  %idx = stablehlo.iota dim = 0 : tensor<4xi32>
  %init_v = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %init_i = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.reduce(%v init: %init_v), (%idx init: %init_i) across dimensions = [0] : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
    reducer(%a: tensor<f32>, %c: tensor<f32>) (%b: tensor<i32>, %d: tensor<i32>) {
      %gt = stablehlo.compare GT, %a, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %eq = stablehlo.compare EQ, %a, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %lt = stablehlo.compare LT, %b, %d : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %tie = stablehlo.and %eq, %lt : tensor<i1>
      %pick = stablehlo.or %gt, %tie : tensor<i1>
      %mv = stablehlo.select %pick, %a, %c : tensor<i1>, tensor<f32>
      %mi = stablehlo.select %pick, %b, %d : tensor<i1>, tensor<i32>
      stablehlo.return %mv, %mi : tensor<f32>, tensor<i32>
    }
  check.expect_eq_const %r#0, dense<7.0> : tensor<f32>
  check.expect_eq_const %r#1, dense<1> : tensor<i32>
  func.return
}

// -----

func.func @reduce_window() {
  %i = stablehlo.iota dim = 0 : tensor<5xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.reduce_window"(%i, %zero) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>, padding = dense<[[1, 0]]> : tensor<1x2xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) : (tensor<5xf32>, tensor<f32>) -> tensor<3xf32>
  check.expect_eq_const %r, dense<[0.0, 3.0, 7.0]> : tensor<3xf32>
  %d = "stablehlo.reduce_window"(%i, %zero) <{window_dimensions = array<i64: 2>, window_dilations = array<i64: 2>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
  }) : (tensor<5xf32>, tensor<f32>) -> tensor<3xf32>
  check.expect_eq_const %d, dense<[2.0, 3.0, 4.0]> : tensor<3xf32>
  func.return
}

// -----

func.func @select_and_scatter() {
  %operand = stablehlo.constant dense<[[1, 5], [2, 5], [3, 6], [4, 4]]> : tensor<4x2xi64>
  %source = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi64>
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %r = "stablehlo.select_and_scatter"(%operand, %source, %zero) <{window_dimensions = array<i64: 3, 1>, window_strides = array<i64: 2, 1>, padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>}> ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %ge = stablehlo.compare GE, %a, %b : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %ge : tensor<i1>
  }, {
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %s = stablehlo.add %a, %b : tensor<i64>
      stablehlo.return %s : tensor<i64>
  }) : (tensor<4x2xi64>, tensor<2x2xi64>, tensor<i64>) -> tensor<4x2xi64>
  check.expect_eq_const %r, dense<[[0, 0], [0, 0], [5, 14], [7, 0]]> : tensor<4x2xi64>
  func.return
}

// -----

func.func @sort() {
  %keys = stablehlo.constant dense<[[3, 1, 2], [1, 1, 0]]> : tensor<2x3xi32>
  %vals = stablehlo.constant dense<[[10, 11, 12], [20, 21, 22]]> : tensor<2x3xi32>
  %r:2 = "stablehlo.sort"(%keys, %vals) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<i32>, %d: tensor<i32>):
      %lt = stablehlo.compare GT, %a, %b : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
  }) : (tensor<2x3xi32>, tensor<2x3xi32>) -> (tensor<2x3xi32>, tensor<2x3xi32>)
  check.expect_eq_const %r#0, dense<[[3, 2, 1], [1, 1, 0]]> : tensor<2x3xi32>
  check.expect_eq_const %r#1, dense<[[10, 12, 11], [20, 21, 22]]> : tensor<2x3xi32>
  func.return
}
