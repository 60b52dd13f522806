package nccltest

import "fmt"

// layout says where a data row's columns are, as the table header of the same run names them.
// Rows are read from the right: the leading columns (size, count, type, then redop and root
// in the releases and collectives that have them) vary, and some real outputs leave an empty
// redop out of the row while the header names it.
type layout struct {
	// tail is how many fields of a row the header's columns take, from the out-of-place time on.
	tail int
	// halves are where, within the tail, the out-of-place and the in-place time begin.
	halves [2]int
	// maxDelta is set by the pre-2.13 "error" column (see Result.MaxDelta).
	maxDelta bool
}

// readHeader reads the column names of "#  size  count  type ..." (without the "#"). Each
// half is time, algbw, busbw and #wrong ("error" before 2.13; "cputime" for time under
// -C 1). What else the header names takes its place in the rows: -I 1 adds i_min, i_max,
// i_p99 and i_cv% after each half (v2.19.2+), -S 1 a timestamp at the end (v2.17.6+);
// NVIDIA/nccl-tests src/util.cu writeResultHeader, writeBenchmarkLineBody, writePerIterReport
// and writeTimestamp at v2.19.6.
func readHeader(names []string) (layout, error) {
	var l layout
	var starts []int
	for i := 0; i+3 < len(names); i++ {
		if (names[i] == "time" || names[i] == "cputime") && names[i+1] == "algbw" && names[i+2] == "busbw" &&
			(names[i+3] == "#wrong" || names[i+3] == "error") {
			starts = append(starts, i)
			l.maxDelta = names[i+3] == "error"
			i += 3
		}
	}
	if len(starts) != 2 {
		return layout{}, fmt.Errorf("%d of the two halves' time, algbw, busbw and #wrong columns", len(starts))
	}
	for i := starts[0]; i < len(names); i++ {
		switch i {
		case starts[0]:
			l.halves[0] = l.tail
		case starts[1]:
			l.halves[1] = l.tail
		}
		l.tail += rowFields(names[i])
	}
	return l, nil
}

// rowFields is how many space-separated fields a column takes in a row: the timestamp is
// strftime's "%Y-%m-%d %H:%M:%S" (TIME_STRING_FORMAT, src/util.cu v2.17.6+), two fields.
func rowFields(name string) int {
	if name == "timestamp" {
		return 2
	}
	return 1
}
