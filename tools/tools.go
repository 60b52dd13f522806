//go:build generate

// Package tools pins the code generators the project runs through `make docs`, in a module of
// their own so their dependencies stay out of the provider's go.mod.
package tools

import (
	_ "github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs"
)
