//go:build release

package release

import (
	"archive/zip"
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/dirhash"
	"gopkg.in/yaml.v3"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/twinvars"
)

const project = "terraform-provider-roce"

// tool returns the path an environment variable names (GNUmakefile exports them); a missing
// tool fails the test: make tools installs it.
func tool(t *testing.T, env string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		t.Fatalf("%s is not set: run the tests through make (make tools installs goreleaser, terraform and tofu into ./bin)", env)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s: %v (run make tools)", env, err)
	}
	return p
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return string(out)
}

// release is what goreleaser built for this platform.
type release struct {
	version string
	archive string // the zip for runtime.GOOS/GOARCH
	sums    map[string]string
}

// buildRelease runs goreleaser with the repository's .goreleaser.yml for the local platform
// only, unsigned, into a temporary dist directory.
func buildRelease(t *testing.T, root string) release {
	t.Helper()
	goreleaser := tool(t, "ROCE_GORELEASER")
	dist := filepath.Join(t.TempDir(), "dist")
	cfg, err := os.ReadFile(filepath.Join(root, ".goreleaser.yml"))
	if err != nil {
		t.Fatal(err)
	}
	// The same configuration for this platform only, into another dist directory, so a test
	// builds one binary and never touches the checkout's dist/.
	var doc map[string]any
	if err := yaml.Unmarshal(cfg, &doc); err != nil {
		t.Fatalf(".goreleaser.yml: %v", err)
	}
	builds, _ := doc["builds"].([]any)
	if len(builds) != 1 {
		t.Fatalf(".goreleaser.yml has %d builds, want 1", len(builds))
	}
	build := builds[0].(map[string]any)
	build["goos"], build["goarch"] = []string{runtime.GOOS}, []string{runtime.GOARCH}
	doc["dist"] = dist
	local, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(t.TempDir(), "goreleaser.yml")
	if err := os.WriteFile(cfgFile, local, 0o600); err != nil {
		t.Fatal(err)
	}
	run(t, root, nil, goreleaser, "release", "--snapshot", "--clean", "--skip=sign,publish,before", "--config", cfgFile)

	var meta struct {
		Version string `json:"version"`
	}
	raw, err := os.ReadFile(filepath.Join(dist, "metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &meta); err != nil || meta.Version == "" {
		t.Fatalf("dist/metadata.json: %v %s", err, raw)
	}
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(meta.Version) {
		t.Fatalf("snapshot version %q is not a release version: Terraform only installs a pre-release when a configuration pins it", meta.Version)
	}
	r := release{version: meta.Version, sums: map[string]string{},
		archive: filepath.Join(dist, fmt.Sprintf("%s_%s_%s_%s.zip", project, meta.Version, runtime.GOOS, runtime.GOARCH))}
	f, err := os.Open(filepath.Join(dist, fmt.Sprintf("%s_%s_SHA256SUMS", project, meta.Version)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if sum, name, ok := strings.Cut(sc.Text(), "  "); ok {
			r.sums[name] = sum
		}
	}
	return r
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// checkArchive checks what the registry requires of a release: the zip holds the executable
// terraform-provider-roce_v<version>, SHA256SUMS covers the zip and the protocol manifest,
// and the manifest is the repository's.
func checkArchive(t *testing.T, root string, r release) {
	t.Helper()
	zr, err := zip.OpenReader(r.archive)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	// Terraform runs the file named terraform-provider-<type>_v<version>; goreleaser adds the
	// README, LICENSE and CHANGELOG beside it, which the CLIs ignore.
	binary, names := project+"_v"+r.version, []string{}
	found := false
	for _, f := range zr.File {
		names = append(names, f.Name)
		if f.Name == binary {
			found = f.Mode()&0o111 != 0
		}
	}
	if !found {
		t.Errorf("archive holds %q, want the executable %s", names, binary)
	}
	if got, want := r.sums[filepath.Base(r.archive)], sha256File(t, r.archive); got != want {
		t.Errorf("SHA256SUMS has %q for %s, the file's sha256 is %s", got, filepath.Base(r.archive), want)
	}
	manifest := fmt.Sprintf("%s_%s_manifest.json", project, r.version)
	if got, want := r.sums[manifest], sha256File(t, filepath.Join(root, "terraform-registry-manifest.json")); got != want {
		t.Errorf("SHA256SUMS has %q for %s, want the sha256 of terraform-registry-manifest.json %s", got, manifest, want)
	}
}

// mirror lays the archive out as a packed filesystem mirror for both registries' hostnames:
// <dir>/<host>/clusterbid/roce/<archive>.zip (Terraform's and OpenTofu's provider
// installation docs).
func mirror(t *testing.T, r release) string {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(r.archive)
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"registry.terraform.io", "registry.opentofu.org"} {
		d := filepath.Join(dir, host, "clusterbid", "roce")
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, filepath.Base(r.archive)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// copyDir copies the example directories a root module needs, keeping their relative paths.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if d.Name() == ".terraform" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !strings.HasSuffix(p, ".tf") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestInstallFromReleaseArchive builds the release archive for this platform, checks it as the
// registry would, and for each CLI (Terraform, OpenTofu) installs it with init from a
// filesystem mirror, checks the lock file, and applies examples/demo on a switch twin fabric.
func TestInstallFromReleaseArchive(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	clis := map[string]string{"terraform": tool(t, "TF_ACC_TERRAFORM_PATH"), "tofu": tool(t, "ROCE_TOFU")}
	r := buildRelease(t, root)
	checkArchive(t, root, r)
	mirrorDir := mirror(t, r)
	// The lock file records the h1: hash of the package; zh: hashes come only from a registry
	// that signs its SHA256SUMS, which a mirror has not (terraform v1.8.5
	// internal/providercache/installer.go records signedHashes only when SignedByAnyParty).
	h1, err := dirhash.HashZip(r.archive, dirhash.Hash1)
	if err != nil {
		t.Fatal(err)
	}

	stateDir := t.TempDir()
	switches, err := twinvars.StartSwitches(stateDir, "roce-install-test", 1, twinvars.SwitchSpec{Ports: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(switches.Stop)
	twins := switches.SONiC
	vars, err := twinvars.New(twinvars.Endpoints{Switches: switches.Endpoints})
	if err != nil {
		t.Fatal(err)
	}

	for name, cli := range clis {
		t.Run(name, func(t *testing.T) {
			examples := t.TempDir()
			copyDir(t, filepath.Join(root, "examples", "demo"), filepath.Join(examples, "demo"))
			copyDir(t, filepath.Join(root, "examples", "modules"), filepath.Join(examples, "modules"))
			demo := filepath.Join(examples, "demo")
			if err := twinvars.Write(filepath.Join(demo, "terraform.tfvars.json"), vars); err != nil {
				t.Fatal(err)
			}
			rc := filepath.Join(t.TempDir(), "cli.tfrc")
			if err := os.WriteFile(rc, []byte(fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path = %q\n  }\n}\n", mirrorDir)), 0o600); err != nil {
				t.Fatal(err)
			}
			env := []string{"TF_CLI_CONFIG_FILE=" + rc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1", "TF_PLUGIN_CACHE_DIR="}
			run(t, demo, env, cli, "init", "-input=false", "-no-color")

			host := map[string]string{"terraform": "registry.terraform.io", "tofu": "registry.opentofu.org"}[name]
			lock, err := os.ReadFile(filepath.Join(demo, ".terraform.lock.hcl"))
			if err != nil {
				t.Fatal(err)
			}
			want := regexp.MustCompile(`(?s)provider "` + regexp.QuoteMeta(host+"/clusterbid/roce") + `" \{\s+version\s+= "` + regexp.QuoteMeta(r.version) + `"\s+hashes = \[\s+"` + regexp.QuoteMeta(h1) + `",\s+\]`)
			if !want.Match(lock) {
				t.Errorf(".terraform.lock.hcl does not record %s %s with the archive's hash %s:\n%s", host+"/clusterbid/roce", r.version, h1, lock)
			}
			run(t, demo, env, cli, "apply", "-auto-approve", "-input=false", "-no-color")
			cmd := exec.Command(cli, "plan", "-detailed-exitcode", "-input=false", "-no-color")
			cmd.Dir, cmd.Env = demo, append(os.Environ(), env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("second plan is not empty (%v):\n%s", err, out)
			}
			if e, _ := twins[0].Entry("DSCP_TO_TC_MAP", "ROCE"); e["26"] != "3" {
				t.Errorf("after apply with the installed provider, DSCP_TO_TC_MAP|ROCE 26 -> %q, want 3", e["26"])
			}
			run(t, demo, env, cli, "destroy", "-auto-approve", "-input=false", "-no-color")
			if _, ok := twins[0].Entry("DSCP_TO_TC_MAP", "ROCE"); ok {
				t.Error("destroy left DSCP_TO_TC_MAP|ROCE on the switch")
			}
		})
	}
}
