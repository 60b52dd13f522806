package nccltest

// wrong reports whether a half's last column marks wrong results. From nccl-tests 2.13 it
// counts wrong elements. Before, it is the largest deviation from the expected values, and
// the tool counted a result wrong only past DeltaMaxValue(type) x (nranks-1) (NVIDIA/nccl-tests
// src/common.cu CheckData at v2.11.0; v2.13.0 replaced it with the wrongElts count). It
// printed the deviation to one digit ("%5.0le"), so one just past the bound can read as equal
// to it; the footer's out-of-bounds count, which the tool took from the exact value, still
// fails the data check then.
func (r Result) wrong(h Half, typ string, nranks int) bool {
	if !r.MaxDelta {
		return h.Wrong > 0
	}
	return h.Wrong > deltaBound(typ, nranks)
}

// deltaBound is the deviation pre-2.13 releases allowed: DeltaMaxValue of src/common.cu at
// v2.11.0 (1e-2 for half and bfloat16, 1e-5 for float, 1e-12 for double, 1e-200 for the
// integers) times the other ranks' count. Without a rank count it takes two ranks, the
// smallest run that reduces anything across ranks.
func deltaBound(typ string, nranks int) float64 {
	if nranks < 1 {
		nranks = 2
	}
	per := 1e-200
	switch typ {
	case "half", "bfloat16":
		per = 1e-2
	case "float":
		per = 1e-5
	case "double":
		per = 1e-12
	}
	return per * float64(nranks-1)
}
