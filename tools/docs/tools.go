//go:build generate

// Package docs pins the code generators the project runs through `make docs`, in a module of
// their own so their dependencies stay out of the provider's go.mod.
package docs

import (
	_ "github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs"
)
