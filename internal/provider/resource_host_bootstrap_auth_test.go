package provider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

const repoPassword = "s3cret-Pw"

// loginRepo serves the twin host's /srv over HTTP on loopback to requests that bring the
// login gpu / repoPassword, and counts them; others get 401 with a Basic challenge.
func loginRepo(t *testing.T, root string) (url string, served *atomic.Int64) {
	t.Helper()
	served = new(atomic.Int64)
	files := http.FileServer(http.Dir(filepath.Join(root, "srv")))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "gpu" || p != repoPassword {
			w.Header().Set("WWW-Authenticate", `Basic realm="ofed"`)
			http.Error(w, "login needed", http.StatusUnauthorized)
			return
		}
		served.Add(1)
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, served
}

// TestHostBootstrapRepoLogin installs OFED from a repository behind basic authentication,
// on Debian through apt's auth.conf.d and on Rocky through the .repo file: the real apt and
// dnf fetch with the login, its files are mode 0600, and no plan line holds the password.
func TestHostBootstrapRepoLogin(t *testing.T) {
	f, provider := hostTwins(t)
	for _, c := range []struct{ host, repo, check, want string }{
		{"authdeb", "/twin-apt/doca/25.10-1.7.1", "stat -c %a /etc/apt/auth.conf.d/roce-ofed.conf; dpkg-query -W doca-ofed", "600\ndoca-ofed\t25.10-1.7.1"},
		{"authrocky", "/twin-dnf/doca/25.07-0.9.7", "stat -c %a /etc/yum.repos.d/roce-ofed.repo; rpm -q doca-ofed", "600\ndoca-ofed-25.07-0.9.7."},
	} {
		t.Run(c.host, func(t *testing.T) {
			root, err := f.Root(c.host)
			if err != nil {
				t.Fatal(err)
			}
			url, served := loginRepo(t, root)
			version := filepath.Base(c.repo)
			config := provider + fmt.Sprintf(`
resource "roce_host_bootstrap" "gpu" {
  host = %q
  ofed = {
    flavor    = "doca"
    version   = %q
    repo_url  = "%s%s"
    trusted   = true # the twin's repository is unsigned
    allow_unsigned_remote = true
    repo_auth = { username = "gpu", password = %q }
  }
  gpudirect = "none"
}
`, twinAddress(t, f, c.host), version, url, c.repo, repoPassword)
			cliTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories,
				Steps: []resource.TestStep{{
					Config: config,
					Check: func(s *terraform.State) error {
						if got := onTwin(t, f, c.host, c.check); !strings.Contains(got, c.want) {
							return fmt.Errorf("%s: want %q in:\n%s", c.check, c.want, got)
						}
						if served.Load() == 0 {
							return fmt.Errorf("the package manager fetched nothing with the login")
						}
						for k, v := range s.RootModule().Resources["roce_host_bootstrap.gpu"].Primary.Attributes {
							if strings.HasPrefix(k, "planned_changes") && strings.Contains(v, repoPassword) {
								return fmt.Errorf("%s holds the password: %s", k, v)
							}
						}
						return nil
					},
				}},
			})
		})
	}
}

// writeOnlyCLI reports whether the CLI under test (TF_ACC_TERRAFORM_PATH) sends write-only
// arguments: Terraform 1.11 and OpenTofu 1.11 were the first.
func writeOnlyCLI(t *testing.T) bool {
	t.Helper()
	out, err := exec.Command(os.Getenv("TF_ACC_TERRAFORM_PATH"), "version", "-json").Output()
	if err != nil {
		t.Fatalf("%s version -json: %v", os.Getenv("TF_ACC_TERRAFORM_PATH"), err)
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	// OpenTofu prints its warnings, a missing CLI configuration for one, before the JSON.
	if i := strings.IndexByte(string(out), '{'); i > 0 {
		out = out[i:]
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("version -json: %v in %s", err, out)
	}
	got, err := version.NewVersion(v.Version)
	if err != nil {
		t.Fatal(err)
	}
	return got.Core().GreaterThanOrEqual(version.Must(version.NewVersion("1.11.0")))
}

// TestHostBootstrapRepoLoginWriteOnly installs OFED with the repository's password as the
// write-only password_wo, on Debian and on Rocky: the package manager fetches with it, no
// state value holds it, and a plan, which has it, finds and puts back a login file someone
// changed, which a refresh cannot. A CLI from before write-only arguments (make testacc's
// Terraform 1.8) gets the framework's refusal at validate instead; make test-release runs
// the full path through OpenTofu 1.12.
func TestHostBootstrapRepoLoginWriteOnly(t *testing.T) {
	f, provider := hostTwins(t)
	supported := writeOnlyCLI(t)
	for _, c := range []struct{ host, repo, file, check, want string }{
		{"wodeb", "/twin-apt/doca/25.10-1.7.1", "/etc/apt/auth.conf.d/roce-ofed.conf", "dpkg-query -W doca-ofed", "doca-ofed\t25.10-1.7.1"},
		{"worocky", "/twin-dnf/doca/25.07-0.9.7", "/etc/yum.repos.d/roce-ofed.repo", "rpm -q doca-ofed", "doca-ofed-25.07-0.9.7."},
	} {
		t.Run(c.host, func(t *testing.T) {
			root, err := f.Root(c.host)
			if err != nil {
				t.Fatal(err)
			}
			url, served := loginRepo(t, root)
			config := func(v int) string {
				return provider + fmt.Sprintf(`
resource "roce_host_bootstrap" "gpu" {
  host = %q
  ofed = {
    flavor    = "doca"
    version   = %q
    repo_url  = "%s%s"
    trusted   = true # the twin's repository is unsigned
    allow_unsigned_remote = true
    repo_auth = { username = "gpu", password_wo = %q, password_wo_version = %d }
  }
  gpudirect = "none"
}
`, twinAddress(t, f, c.host), filepath.Base(c.repo), url, c.repo, repoPassword, v)
			}
			if !supported {
				cliTest(t, resource.TestCase{
					ProtoV6ProviderFactories: testProviderFactories,
					Steps: []resource.TestStep{{Config: config(1), PlanOnly: true,
						ExpectError: regexp.MustCompile(`Write-only attributes are only supported in\s+Terraform 1.11`)}},
				})
				return
			}
			noPassword := func(s *terraform.State) error {
				for k, v := range s.RootModule().Resources["roce_host_bootstrap.gpu"].Primary.Attributes {
					if strings.Contains(v, repoPassword) {
						return fmt.Errorf("state attribute %s holds the password", k)
					}
				}
				return nil
			}
			passwordOnHost := func(*terraform.State) error {
				if got := onTwin(t, f, c.host, "stat -c %a "+c.file+"; grep -c "+repoPassword+" "+c.file); strings.Join(strings.Fields(got), " ") != "600 1" {
					return fmt.Errorf("%s: mode and password lines %q, want 600 and 1", c.file, got)
				}
				return nil
			}
			cliTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories,
				Steps: []resource.TestStep{
					{Config: config(1), Check: resource.ComposeTestCheckFunc(noPassword, passwordOnHost, func(*terraform.State) error {
						if got := onTwin(t, f, c.host, c.check); !strings.Contains(got, c.want) {
							return fmt.Errorf("%s: want %q in:\n%s", c.check, c.want, got)
						}
						if served.Load() == 0 {
							return fmt.Errorf("the package manager fetched nothing with the login")
						}
						return nil
					})},
					// Someone puts another password in the file, mode kept: the plan sees it.
					{PreConfig: func() {
						onTwin(t, f, c.host, "sed -i 's/"+repoPassword+"/changed-by-hand/' "+c.file)
					}, Config: config(1), PlanOnly: true, ExpectNonEmptyPlan: true},
					{Config: config(1), Check: resource.ComposeTestCheckFunc(noPassword, passwordOnHost)},
					// A new version with the same password: an update that changes nothing.
					{Config: config(2), Check: resource.ComposeTestCheckFunc(noPassword, passwordOnHost)},
				},
			})
		})
	}
}
