// Package release tests the provider as users install it: the registry archive goreleaser
// builds, laid out as a filesystem mirror, installed by terraform init and tofu init (no
// dev_overrides, no network), and applied on switch twins. Its test carries the build tag
// release: make test-release runs it, after building goreleaser and OpenTofu, which make test
// does not need.
package release
