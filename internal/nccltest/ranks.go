package nccltest

import "fmt"

// builtWithoutMPI is the remedy when the ranks did not run as one job.
const builtWithoutMPI = "rebuild nccl-tests with MPI on every host (make MPI=1 MPI_HOME=<MPI install prefix>, as nccl-tests' README says for several processes) " +
	"and point binary at that build (NAME_SUFFIX=_mpi names it all_reduce_perf_mpi); a build without MPI ignores mpirun and runs each process alone"

// rankCount is the number of distinct rank numbers of the "Using devices" lines.
func (r Result) rankCount() int {
	seen := map[int]bool{}
	for _, rk := range r.Ranks {
		seen[rk.Rank] = true
	}
	return len(seen)
}

// ranksVerdict judges whether the run was one job of the ranks asked for (want; 0 does not
// count them). A build without MPI_SUPPORT (nccl-tests src/Makefile MPI=0, the default)
// started by mpirun runs each process as a test of its own: each prints its own header, its
// own ranks numbered from 0 and its own table, where an MPI build gathers every rank's line
// to rank 0 and prints one table (src/util.cu writeDeviceReport, v2.19.6; src/common.cu
// before v2.17.3). A rank number seen twice or a second table shows it.
func ranksVerdict(r Result, want int) (ok bool, detail string) {
	found := r.rankCount()
	expected := ""
	if want > 0 {
		expected = fmt.Sprintf(", %d expected", want)
	}
	switch {
	case r.Tables > 1 || found < len(r.Ranks):
		return false, fmt.Sprintf("%d result tables and %d rank lines for %d distinct ranks%s: each process ran its own test, as all_reduce_perf built without MPI does under mpirun",
			r.Tables, len(r.Ranks), found, expected)
	case want > 0 && found > 0 && found < want:
		return false, fmt.Sprintf("%d ranks in the run, %d expected (hosts x gpus_per_host): the processes did not join one job, as with an all_reduce_perf built without MPI", found, want)
	case found == 0:
		return true, "the output lists no ranks to count"
	case want > 0:
		return true, fmt.Sprintf("%d ranks in one job, as expected", found)
	}
	return true, fmt.Sprintf("%d ranks in one job", found)
}
