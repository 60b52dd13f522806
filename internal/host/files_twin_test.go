package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/tasks"
)

// The file fact reports a symbolic link as a link with its target, without
// reading through it (a unit's .wants link, a dangling link, a link to a
// directory), and never fails the gather for one; a File task refuses to
// replace a link.
func TestGatherSymlinks(t *testing.T) {
	f, c := twin(t, "files")
	const (
		unit     = "/etc/systemd/system/roce-links.service"
		wants    = "/etc/systemd/system/multi-user.target.wants"
		link     = wants + "/roce-links.service"
		dangling = wants + "/gone.service"
		dirLink  = "/etc/roce-links-dir"
		fifo     = "/etc/roce-links.fifo"
	)
	twinRun(t, f, "files", "mkdir -p "+wants+" && printf '[Unit]\\nDescription=longer than the link\\n' >"+unit+
		" && ln -sfn "+unit+" "+link+" && ln -sfn /nonexistent/gone.service "+dangling+" && ln -sfn "+wants+" "+dirLink+
		" && mkfifo "+fifo)
	r := &countingRunner{Runner: c}
	fs, err := host.Gather(context.Background(), r, host.Want{}.WithFiles(unit, link, dangling, dirLink, wants, fifo))
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	if r.runs != 1 || len(fs.Absent) != 0 {
		t.Errorf("%d round trips, absent %v; want 1 and none", r.runs, fs.Absent)
	}
	for path, target := range map[string]string{link: unit, dangling: "/nonexistent/gone.service", dirLink: wants} {
		fi := fs.Files[path]
		want := host.FileInfo{Path: path, Exists: true, Type: host.FileSymlink, Target: target, Mode: 0o777,
			Owner: "root", Group: "root", Size: int64(len(target))}
		if d := cmp.Diff(want, fi); d != "" {
			t.Errorf("%s (-want +got):\n%s", path, d)
		}
	}
	if fi := fs.Files[unit]; fi.Type != host.FileRegular || !fi.Complete() || !strings.Contains(string(fi.Content), "longer") {
		t.Errorf("unit: %+v", fi)
	}
	if fi := fs.Files[wants]; fi.Type != host.FileDirectory || fi.Content != nil {
		t.Errorf("directory: %+v", fi)
	}
	if fi := fs.Files[fifo]; fi.Type != host.FileOther || fi.Content != nil {
		t.Errorf("fifo: %+v", fi)
	}
	_, err = host.Engine{Runner: c}.Plan(context.Background(), []host.Task{tasks.File{Path: link, Content: "x"}})
	if err == nil || !strings.Contains(err.Error(), link+" is a symbolic link, not a regular file: refusing to replace it") {
		t.Errorf("File on a link: err = %v", err)
	}
}

// A file whose directory does not exist is written with its missing
// directories, created with the file's owner, in the same round trip; with
// Engine.Sudo that round trip goes through sudo.
func TestWriteCreatesDirectories(t *testing.T) {
	f, c := twin(t, "files")
	ctx := context.Background()
	const dir = "/etc/roce-new/it's a dir"
	path := dir + "/sub/x.conf"
	task := tasks.File{Path: path, Content: "a=1\n", Mode: 0o640, Owner: "65534:65534"}
	rec := &sudoRecorder{Runner: c}
	eng := host.Engine{Runner: rec, Sudo: true}
	plan, err := eng.Plan(ctx, []host.Task{task})
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	wantLine := "write: '" + strings.ReplaceAll(path, "'", `'\''`) + "' (4 bytes, mode 0640, owner 65534:65534, missing directories created) (as root)"
	if got := plan.Changes()[0].Apply.Lines(); len(got) != 1 || got[0] != wantLine {
		t.Errorf("plan lines = %q, want %q", got, wantLine)
	}
	rec.calls = nil
	rep, err := eng.Apply(ctx, []host.Task{task})
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if rep.RoundTrips != 3 {
		t.Errorf("apply took %d round trips, want 3 (gather, write with mkdir, verify)", rep.RoundTrips)
	}
	if d := cmp.Diff([]string{"gather sudo=true", "run sudo=true", "gather sudo=true"}, rec.calls); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
	got, err := hostFile(t, f, "files", path)
	if err != nil || string(got) != "a=1\n" {
		t.Errorf("file = %q, %v", got, err)
	}
	// /etc existed and is left alone; the new directories are 0755 and the
	// file's owner's.
	out := twinRun(t, f, "files", "stat -c '%n %a %u:%g' /etc /etc/roce-new '"+strings.ReplaceAll(dir, "'", `'\''`)+"' '"+
		strings.ReplaceAll(dir, "'", `'\''`)+"/sub' '"+strings.ReplaceAll(path, "'", `'\''`)+"'")
	want := "/etc 755 0:0\n/etc/roce-new 755 65534:65534\n" + dir + " 755 65534:65534\n" + dir + "/sub 755 65534:65534\n" + path + " 640 65534:65534\n"
	if out != want {
		t.Errorf("stat:\n%s\nwant\n%s", out, want)
	}
	if out := twinRun(t, f, "files", "ls -a '"+strings.ReplaceAll(dir, "'", `'\''`)+"/sub'"); out != ".\n..\nx.conf\n" {
		t.Errorf("temporary files left: %q", out)
	}
	rep, err = host.Engine{Runner: c}.Apply(ctx, []host.Task{task})
	if err != nil || rep.Changed() {
		t.Errorf("second Apply: %v, changed %v", err, rep.Changed())
	}

	// A failed write (the directory's place is taken by a file) says why
	// and leaves nothing behind.
	twinRun(t, f, "files", "printf x >/etc/roce-blocker")
	_, err = host.Engine{Runner: c}.Apply(ctx, []host.Task{tasks.File{Path: "/etc/roce-blocker/sub/y.conf", Content: "y"}})
	t.Logf("write below a file: %v", err)
	if err == nil || !strings.Contains(err.Error(), "write /etc/roce-blocker/sub/y.conf") {
		t.Errorf("write below a file: err = %v", err)
	}
}
