// Package nccltest runs nccl-tests' all_reduce_perf on GPU hosts, reads its
// output as the tool prints it, and judges the bus bandwidth with a verdict
// that names the likely cause of a shortfall from the NCCL debug lines of the
// same run (Socket fallback, GPU Direct RDMA off, a rail missing).
package nccltest

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Result is one all_reduce_perf run.
type Result struct {
	// Version is nccl-tests' own ("2.20.0 (b4d5bee)", from 2.17.4), empty before.
	Version string
	// Ranks are the "#  Rank N Group G Pid P on HOST device D [bus] NAME" lines, every one
	// printed (a rank number repeats when processes ran alone, see Tables).
	Ranks []Rank
	// Rows are the table's data rows, smallest size first as printed.
	Rows []Row
	// Tables counts the result tables' headers. A run prints one; processes of a build without
	// MPI, started by mpirun, print one each.
	Tables int
	// MaxDelta says each half's last column is the pre-2.13 "error" (the largest deviation
	// from the expected values), not the "#wrong" count of wrong elements.
	MaxDelta bool
	// OutOfBounds and OutOfBoundsOK are "# Out of bounds values : N OK|FAILED"; Footer says
	// whether the footer was seen at all (a run that died prints none).
	OutOfBounds   int
	OutOfBoundsOK bool
	// AvgBusBW is "# Avg bus bandwidth : X" in GB/s: the mean over every size and both
	// in-place and out-of-place, not the peak.
	AvgBusBW float64
	Footer   bool
}

// Rank is one rank of the "Using devices" list.
type Rank struct {
	Rank   int
	Host   string
	Device int
	GPU    string
}

// Row is one message size.
type Row struct {
	SizeBytes, Count int64
	Type, Redop      string
	OutOfPlace       Half
	InPlace          Half
}

// Half is the out-of-place or in-place half of a row.
type Half struct {
	TimeUS, AlgBW, BusBW float64
	// Wrong is the #wrong count, or the "error" column's deviation where Result.MaxDelta is
	// set; Unchecked is set when it printed N/A (a run with -c 0).
	Wrong     float64
	Unchecked bool
}

// Largest returns the row of the largest message size, the one the fabric's bandwidth shows in.
func (r Result) Largest() (Row, bool) {
	if len(r.Rows) == 0 {
		return Row{}, false
	}
	best := r.Rows[0]
	for _, row := range r.Rows[1:] {
		if row.SizeBytes > best.SizeBytes {
			best = row
		}
	}
	return best, true
}

// ParseError says which line of the output could not be read.
type ParseError struct {
	Line int
	Text string
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return "parse all_reduce_perf output: " + e.Msg
	}
	return fmt.Sprintf("parse all_reduce_perf output: line %d %q: %s", e.Line, e.Text, e.Msg)
}

// Parse reads all_reduce_perf's output. Lines it does not know (NCCL's INFO lines, mpirun's)
// are skipped, and a launcher's label in front of a line is dropped (stripLauncher). The data
// rows' columns are found from the table header the run printed (readHeader), so the columns
// that -C, -S and -I change or add are read where they are. Trailing spaces, which several
// releases print, do not matter.
func Parse(out string) (Result, error) {
	var r Result
	var cols layout
	header := false
	for i, raw := range splitLines(out) {
		line := strings.TrimRight(stripLauncher(raw), " \t")
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case strings.HasPrefix(line, "# nccl-tests version "):
			r.Version = strings.TrimSpace(strings.SplitN(strings.TrimPrefix(line, "# nccl-tests version "), " nccl-headers=", 2)[0])
		case f[0] == "#" && len(f) > 2 && f[1] == "Rank":
			rank, err := parseRank(f)
			if err != nil {
				return Result{}, &ParseError{Line: i + 1, Text: line, Msg: err.Error()}
			}
			r.Ranks = append(r.Ranks, rank)
		case f[0] == "#" && len(f) > 2 && f[1] == "size" && f[2] == "count":
			var err error
			if cols, err = readHeader(f[1:]); err != nil {
				return Result{}, &ParseError{Line: i + 1, Text: line, Msg: err.Error()}
			}
			header = true
			r.Tables++
			r.MaxDelta = cols.maxDelta
		case strings.HasPrefix(line, "# Out of bounds values"):
			v := strings.Fields(afterColon(line))
			if len(v) < 2 {
				return Result{}, &ParseError{Line: i + 1, Text: line, Msg: "want \"<count> OK|FAILED\""}
			}
			n, err := strconv.Atoi(v[0])
			if err != nil {
				return Result{}, &ParseError{Line: i + 1, Text: line, Msg: "count is not a number"}
			}
			r.OutOfBounds, r.OutOfBoundsOK, r.Footer = n, v[1] == "OK", true
		case strings.HasPrefix(line, "# Avg bus bandwidth"):
			v := strings.Fields(afterColon(line))
			if len(v) < 1 {
				return Result{}, &ParseError{Line: i + 1, Text: line, Msg: "no bandwidth"}
			}
			bw, err := strconv.ParseFloat(v[0], 64)
			if err != nil || !finite(bw) {
				return Result{}, &ParseError{Line: i + 1, Text: line, Msg: "bandwidth is not a number"}
			}
			r.AvgBusBW, r.Footer = bw, true
		case header && line[0] != '#' && isInt(f[0]):
			row, err := parseRow(f, cols)
			if err != nil {
				return Result{}, &ParseError{Line: i + 1, Text: line, Msg: err.Error()}
			}
			r.Rows = append(r.Rows, row)
		}
	}
	if !header {
		return Result{}, &ParseError{Msg: "no table header (\"#  size  count  type ...\"): the test did not start"}
	}
	return r, nil
}

func parseRow(f []string, cols layout) (Row, error) {
	if len(f) < 3+cols.tail {
		return Row{}, fmt.Errorf("%d fields, want at least %d", len(f), 3+cols.tail)
	}
	size, err1 := strconv.ParseInt(f[0], 10, 64)
	count, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil || size < 0 || count < 0 {
		return Row{}, fmt.Errorf("size and count must be whole numbers")
	}
	tail := f[len(f)-cols.tail:]
	mid := f[2 : len(f)-cols.tail]
	row := Row{SizeBytes: size, Count: count, Type: mid[0]}
	if len(mid) > 1 && !isInt(mid[1]) {
		row.Redop = mid[1]
	}
	var err error
	if row.OutOfPlace, err = parseHalf(tail[cols.halves[0] : cols.halves[0]+4]); err != nil {
		return Row{}, err
	}
	if row.InPlace, err = parseHalf(tail[cols.halves[1] : cols.halves[1]+4]); err != nil {
		return Row{}, err
	}
	return row, nil
}

func parseHalf(f []string) (Half, error) {
	var h Half
	var err error
	for i, dst := range []*float64{&h.TimeUS, &h.AlgBW, &h.BusBW} {
		if *dst, err = strconv.ParseFloat(f[i], 64); err != nil || *dst < 0 || !finite(*dst) {
			return Half{}, fmt.Errorf("%q is not a time or bandwidth", f[i])
		}
	}
	if f[3] == "N/A" {
		h.Unchecked = true
		return h, nil
	}
	if h.Wrong, err = strconv.ParseFloat(f[3], 64); err != nil || h.Wrong < 0 || !finite(h.Wrong) {
		return Half{}, fmt.Errorf("#wrong or error %q is not a number", f[3])
	}
	return h, nil
}

// parseRank reads "# Rank 0 Group 0 Pid 1666603 on spark-d708 device 0 [000f:01:00] NVIDIA GB10"
// (and the pre-2.13 form without Group).
func parseRank(f []string) (Rank, error) {
	var r Rank
	var err error
	if r.Rank, err = strconv.Atoi(f[2]); err != nil {
		return Rank{}, fmt.Errorf("rank %q is not a number", f[2])
	}
	for i := 3; i+1 < len(f); i++ {
		switch f[i] {
		case "on":
			r.Host = f[i+1]
		case "device":
			if r.Device, err = strconv.Atoi(f[i+1]); err != nil {
				return Rank{}, fmt.Errorf("device %q is not a number", f[i+1])
			}
			if i+3 < len(f) {
				r.GPU = strings.Join(f[i+3:], " ")
			}
			return r, nil
		}
	}
	return Rank{}, fmt.Errorf("no \"device\" field")
}

// Launchers' labels in front of each line of a rank's output: Open MPI's
// "[jobid,rank]<stdout>:" (also <stderr>, <stddiag>; mpirun(1) --tag-output), and the
// "[rank] " of MPICH's and Intel MPI's Hydra -prepend-rank (pmodels/mpich
// src/pm/hydra/mpiexec/options.c, prepend pattern "[%r] ").
var (
	ompiTag   = regexp.MustCompile(`^\[\d+,\d+\]<std(?:out|err|diag)>:`)
	hydraRank = regexp.MustCompile(`^\[\d+\] `)
)

// stripLauncher drops a launcher's label from the start of line; any other line is kept as is.
func stripLauncher(line string) string {
	for _, re := range []*regexp.Regexp{ompiTag, hydraRank} {
		if loc := re.FindStringIndex(line); loc != nil {
			return line[loc[1]:]
		}
	}
	return line
}

func splitLines(out string) []string {
	return strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n")
}

// finite refuses NaN and infinities, which strconv accepts ("nan", "inf") and no
// bandwidth is.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func afterColon(line string) string {
	_, v, _ := strings.Cut(line, ":")
	return v
}

func isInt(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}
