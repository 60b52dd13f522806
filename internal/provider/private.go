package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// privateReader is the part of the framework's private state the resources read; requests
// and responses of every operation satisfy it.
type privateReader interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}
