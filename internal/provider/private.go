package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// privateReader and privateWriter are the parts of the framework's private state the
// resources use; requests and responses of every operation satisfy them.
type privateReader interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

type privateWriter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}
