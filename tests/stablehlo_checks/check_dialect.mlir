// The check dialect itself: every check op and spelling, StableHLO's default tolerance
// (1e-4 absolute), ULP limits, NaN handling and probes (kept in memory by hlotool).
func.func @eq_forms() {
  %a = stablehlo.constant dense<[-2, 0, 2]> : tensor<3xi64>
  %b = stablehlo.constant dense<[-2, 0, 2]> : tensor<3xi64>
  check.expect_eq %a, %b : tensor<3xi64>
  check.expect_eq_const %a, dense<[-2, 0, 2]> : tensor<3xi64>
  "check.expect_eq"(%a, %b) : (tensor<3xi64>, tensor<3xi64>) -> ()
  "check.expect_eq_const"(%a) {value = dense<[-2, 0, 2]> : tensor<3xi64>} : (tensor<3xi64>) -> ()
  %n = stablehlo.constant dense<[0x7FC00000, -0.0]> : tensor<2xf32>
  check.expect_eq_const %n, dense<[0x7FC00000, 0.0]> : tensor<2xf32>
  func.return
}

// -----

func.func @almost_eq_forms() {
  %x = stablehlo.constant dense<5.0> : tensor<f64>
  %y = stablehlo.constant dense<5.00009> : tensor<f64>
  check.expect_almost_eq %x, %y : tensor<f64>
  check.expect_almost_eq_const %x, dense<5.00009> : tensor<f64>
  check.expect_almost_eq %x, %y, tolerance = 0.1 : tensor<f64>
  check.expect_almost_eq_const %x, dense<5.09> : tensor<f64>, tolerance = 0.1
  check.expect_almost_eq_const %x, dense<5.09> : tensor<f64> {tolerance = 0.1 : f64}
  %h = stablehlo.constant dense<[1.0, 0x7E00, 0xFC00]> : tensor<3xf16>
  check.expect_almost_eq_const %h, dense<[1.0, 0x7E00, 0xFC00]> : tensor<3xf16>
  func.return
}

// -----

func.func @close() {
  %a = stablehlo.constant dense<5.0> : tensor<f16>
  %b = stablehlo.constant dense<5.010> : tensor<f16>
  check.expect_close %a, %b, max_ulp_difference = 3 : tensor<f16>, tensor<f16>
  check.expect_close %a, %b, max_ulp_difference = 3, min_ulp_difference = 3 : tensor<f16>, tensor<f16>
  %c = stablehlo.constant dense<[1.0, -0.0, 0x7F80]> : tensor<3xbf16>
  %d = stablehlo.constant dense<[1.0, 0.0, 0x7F80]> : tensor<3xbf16>
  check.expect_close %c, %d, max_ulp_difference = 0 : tensor<3xbf16>, tensor<3xbf16>
  func.return
}

// -----

func.func @probes() {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %two = stablehlo.constant dense<2> : tensor<i64>
  %i, %s = stablehlo.while(%iv = %zero, %acc = %zero) : tensor<i64>, tensor<i64>
  cond {
    %lt = stablehlo.compare LT, %iv, %two : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %acc2 = stablehlo.add %acc, %one : tensor<i64>
    %seen = interpreter.probe %acc2, probe_id = "sum" : tensor<i64>
    %next = stablehlo.add %iv, %one : tensor<i64>
    stablehlo.return %next, %seen : tensor<i64>, tensor<i64>
  }
  check.expect_eq_const %s, dense<2> : tensor<i64>
  check.expect_serialized_eq %one, probe_id = "sum" : tensor<i64>
  check.expect_serialized_eq %two, probe_id = "sum", iter = 1 : tensor<i64>
  func.return
}
