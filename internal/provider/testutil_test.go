package provider

import "github.com/hashicorp/terraform-plugin-testing/config"

// configVariables builds a one-variable set for a test step.
func configVariables(name string, value int) config.Variables {
	return config.Variables{name: config.IntegerVariable(value)}
}
