package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// workspace is a copy of examples/demo and the module it calls, run through the real CLI
// with the provider built in bin/ (dev_overrides), which reports its own usage (usage.go).
type workspace struct {
	dir       string // the root module
	terraform string
	env       []string
	usage     string // where the provider processes keep their usage files
	logs      string
	profiles  string // CPU and heap profiles of the provider, a folder per run (empty: none)
}

// newWorkspace copies the demo into dir and writes a CLI configuration whose dev_overrides
// point at the provider's directory.
func newWorkspace(c config, dir, profiles string) (*workspace, error) {
	examples := filepath.Join(dir, "examples")
	for _, sub := range []string{"demo", filepath.Join("modules", "rail-optimized-pod")} {
		if err := copyTF(filepath.Join(c.root, "examples", sub), filepath.Join(examples, sub)); err != nil {
			return nil, err
		}
	}
	rc := filepath.Join(dir, "terraformrc")
	conf := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"clusterbid/roce\" = %q\n  }\n  direct {}\n}\n", filepath.Dir(c.provider))
	if err := os.WriteFile(rc, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	w := &workspace{
		dir:       filepath.Join(examples, "demo"),
		terraform: c.terraform,
		usage:     filepath.Join(dir, "usage"),
		logs:      filepath.Join(dir, "logs"),
		profiles:  profiles,
	}
	w.env = append(os.Environ(),
		"TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1",
		envProviderUsage+"="+w.usage,
	)
	// The provider refuses a usage directory that does not exist; each step empties it.
	if err := os.MkdirAll(w.usage, 0o755); err != nil {
		return nil, err
	}
	return w, os.MkdirAll(w.logs, 0o755)
}

// copyTF copies the .tf files of src to dst.
func copyTF(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".tf") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// run runs terraform with args; the output goes to logs/<name>.log. It returns the exit code
// and an error for anything but the codes in ok.
func (w *workspace) run(ctx context.Context, name string, ok []int, args ...string) (int, error) {
	log := filepath.Join(w.logs, name+".log")
	out, err := os.Create(log)
	if err != nil {
		return 0, err
	}
	defer out.Close()
	cmd := exec.CommandContext(ctx, w.terraform, append([]string{"-chdir=" + w.dir}, args...)...)
	cmd.Env, cmd.Stdout, cmd.Stderr = w.env, out, out
	if w.profiles != "" {
		// The provider's own hook (main.go): cpu-, heap- and heap-peak-<pid>.pprof per
		// provider process.
		dir := filepath.Join(w.profiles, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return 0, err
		}
		cmd.Env = append(slices.Clip(w.env), "ROCE_PROVIDER_CPUPROFILE="+dir)
	}
	err = cmd.Run()
	code := cmd.ProcessState.ExitCode()
	for _, c := range ok {
		if code == c {
			return code, nil
		}
	}
	b, _ := os.ReadFile(log)
	return code, fmt.Errorf("terraform %s: %v (exit %d):\n%s", strings.Join(args, " "), err, code, tailLines(string(b), 40))
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
