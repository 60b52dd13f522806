package deps

import (
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/hashicorp/go-version"
	_ "github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	_ "github.com/hashicorp/terraform-plugin-framework/provider"
	_ "github.com/hashicorp/terraform-plugin-go/tfprotov6"
	_ "github.com/hashicorp/terraform-plugin-log/tflog"
	_ "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	_ "github.com/openconfig/gnmi/proto/gnmi"
	_ "github.com/pkg/sftp"
	_ "golang.org/x/crypto/ssh"
	_ "google.golang.org/grpc"
	_ "google.golang.org/protobuf/testing/protocmp"
)
