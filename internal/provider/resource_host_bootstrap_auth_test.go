package provider

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

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
			resource.UnitTest(t, resource.TestCase{
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
