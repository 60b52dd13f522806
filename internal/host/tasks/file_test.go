package tasks

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
)

// ncclPath is the file of the File plan tests.
const ncclPath = "/etc/nccl.conf"

// ncclFacts returns facts that gathered ncclPath as fi.
func ncclFacts(fi host.FileInfo) host.Facts {
	fi.Path = ncclPath
	return host.Facts{Host: "h", Files: map[string]host.FileInfo{ncclPath: fi}, Absent: map[string]string{}}
}

// existing is a root-owned regular file with content.
func existing(content string, mode os.FileMode) host.FileInfo {
	return host.FileInfo{
		Exists: true, Type: host.FileRegular, Mode: mode, Owner: "root", Group: "root",
		Size: int64(len(content)), SHA256: sha256Hex([]byte(content)), Content: []byte(content),
	}
}

// change is the readable part of a host.Change.
type change struct {
	Summary, Before, After string
	Lines                  []string
}

func readable(cs []host.Change) []change {
	out := make([]change, len(cs))
	for i, c := range cs {
		out[i] = change{Summary: c.Summary, Before: c.Before, After: c.After}
		if c.Apply != nil {
			out[i].Lines = c.Apply.Lines()
		}
	}
	return out
}

func TestFilePlan(t *testing.T) {
	const p = ncclPath
	content := "NCCL_IB_HCA==mlx5_0\nNCCL_IB_GID_INDEX=3\n"
	sum := shortHash(sha256Hex([]byte(content)))
	cur := existing(content, 0o644)
	tests := []struct {
		name    string
		task    File
		facts   host.Facts
		want    []change
		wantErr string
	}{
		{"create", File{Path: p, Content: content}, ncclFacts(host.FileInfo{}),
			[]change{{"create /etc/nccl.conf (40 bytes)", "absent", "sha256 " + sum + " (40 bytes), mode 0644",
				[]string{"write: /etc/nccl.conf (40 bytes, mode 0644) (as root)"}}}, ""},
		{"same", File{Path: p, Content: content, Mode: 0o644}, ncclFacts(cur),
			[]change{{Summary: "/etc/nccl.conf has the wanted content (sha256 " + sum + ") and mode"}}, ""},
		{"content", File{Path: p, Content: "NCCL_IB_HCA==mlx5_0\nNCCL_IB_GID_INDEX=5\nNCCL_DEBUG=WARN\n"}, ncclFacts(cur),
			[]change{{"update /etc/nccl.conf: content +2 -1 lines", "sha256 " + sum + " (40 bytes), mode 0644, owner root:root",
				"sha256 " + shortHash(sha256Hex([]byte("NCCL_IB_HCA==mlx5_0\nNCCL_IB_GID_INDEX=5\nNCCL_DEBUG=WARN\n"))) + " (56 bytes), mode 0644",
				[]string{"write: /etc/nccl.conf (56 bytes, mode 0644, owner 0:0) (as root)"}}}, ""},
		{"mode and owner", File{Path: p, Content: content, Mode: 0o600, Owner: "nccl:gpu"}, ncclFacts(cur),
			[]change{{"update /etc/nccl.conf: mode 0644 → 0600, owner root:root → nccl:gpu", "sha256 " + sum + " (40 bytes), mode 0644, owner root:root",
				"sha256 " + sum + " (40 bytes), mode 0600, owner nccl:gpu",
				[]string{"write: /etc/nccl.conf (40 bytes, mode 0600, owner nccl:gpu) (as root)"}}}, ""},
		{"numeric owner matches", File{Path: p, Content: content, Owner: "0:0"}, ncclFacts(cur),
			[]change{{Summary: "/etc/nccl.conf has the wanted content (sha256 " + sum + ") and mode"}}, ""},
		{"group only", File{Path: p, Content: content, Owner: ":root"}, ncclFacts(cur),
			[]change{{Summary: "/etc/nccl.conf has the wanted content (sha256 " + sum + ") and mode"}}, ""},
		{"large file by hash", File{Path: p, Content: "new\n"}, ncclFacts(host.FileInfo{
			Exists: true, Type: host.FileRegular, Mode: 0o644, Owner: "root", Group: "root", Size: 1 << 20, SHA256: strings.Repeat("a", 64), Content: []byte("cut"),
		}), []change{{"update /etc/nccl.conf: content sha256 aaaaaaaaaaaa → " + shortHash(sha256Hex([]byte("new\n"))),
			"sha256 aaaaaaaaaaaa (1048576 bytes), mode 0644, owner root:root", "sha256 " + shortHash(sha256Hex([]byte("new\n"))) + " (4 bytes), mode 0644",
			[]string{"write: /etc/nccl.conf (4 bytes, mode 0644, owner 0:0) (as root)"}}}, ""},
		{"withheld, other content", File{Path: p, Mode: 0o644, Secret: true, Withheld: true}, ncclFacts(cur),
			[]change{{Summary: "/etc/nccl.conf has the wanted mode (its write-only content is not compared)"}}, ""},
		{"withheld, mode", File{Path: p, Mode: 0o600, Secret: true, Withheld: true}, ncclFacts(cur),
			[]change{{"update /etc/nccl.conf: mode 0644 → 0600", "secret content, mode 0644, owner root:root", "secret content, mode 0600",
				[]string{"write: /etc/nccl.conf (0 bytes, mode 0600, owner 0:0) (as root)"}}}, ""},
		{"withheld, absent", File{Path: p, Mode: 0o600, Secret: true, Withheld: true}, ncclFacts(host.FileInfo{}),
			[]change{{"create /etc/nccl.conf (its content is write-only: written at the next apply that has it)", "absent", "secret content, mode 0600",
				[]string{"write: /etc/nccl.conf (0 bytes, mode 0600) (as root)"}}}, ""},
		{"symlink", File{Path: p, Content: content}, ncclFacts(host.FileInfo{Exists: true, Type: host.FileSymlink}), nil,
			"/etc/nccl.conf is a symbolic link, not a regular file: refusing to replace it"},
		{"unreadable", File{Path: p, Content: content}, host.Facts{Absent: map[string]string{"file " + p: "exit status 1: Permission denied"}}, nil,
			"cannot read /etc/nccl.conf: exit status 1: Permission denied"},
		{"not gathered", File{Path: p, Content: content}, host.Facts{}, nil, "/etc/nccl.conf was not gathered"},
		{"relative", File{Path: "etc/x"}, host.Facts{}, nil, `file path "etc/x": want an absolute, clean path`},
		{"dotdot", File{Path: "/etc/../x"}, host.Facts{}, nil, "want an absolute, clean path"},
		{"NUL", File{Path: "/etc/a\x00b"}, host.Facts{}, nil, "contains a NUL byte"},
		{"special mode", File{Path: p, Mode: 0o4755 | 1<<23}, host.Facts{}, nil, "want permission bits only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.task.Plan(tt.facts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, readable(got)); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFileNeeds(t *testing.T) {
	f := File{Path: "/etc/x y"}
	if got := f.Needs().Files(); !cmp.Equal(got, []string{"/etc/x y"}) || f.Name() != "file /etc/x y" {
		t.Errorf("Needs files %v, Name %q", got, f.Name())
	}
}

func TestDiffSummary(t *testing.T) {
	tests := []struct{ old, new, want string }{
		{"a\nb\n", "a\nc\n", "+1 -1 lines"},
		{"a\n", "a\nb\nc\n", "+2 -0 lines"},
		{"a\nb\n", "b\na\n", "lines reordered or line endings changed"},
		{"", "x", "+1 -0 line"},
		{"a\na\n", "a\n", "+0 -1 line"},
	}
	for _, tt := range tests {
		if got := diffSummary(tt.old, tt.new); got != tt.want {
			t.Errorf("diffSummary(%q, %q) = %q, want %q", tt.old, tt.new, got, tt.want)
		}
	}
}
