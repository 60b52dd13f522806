terraform {
  required_version = ">= 1.8"
  required_providers {
    roce = {
      source = "clusterbid/roce"
    }
  }
}

# One configuration serves the whole cluster: every resource names its own switch or host.
# Secrets usually come from the environment (ROCE_GNMI_PASSWORD, ROCE_SSH_BECOME_PASSWORD).
provider "roce" {
  ssh = {
    user             = "ubuntu"
    private_key_file = "~/.ssh/id_ed25519"
    known_hosts_file = "~/.ssh/known_hosts"
    max_sessions     = 8
    bastion = {
      host = "jump.dc1.example.net"
      user = "ops"
    }
    become = {
      enabled = true
    }
  }

  gnmi = {
    username    = "admin"
    ca_file     = "/etc/pki/fabric/sonic-ca.pem"
    port        = 50051
    set_timeout = "10m"
  }
}
