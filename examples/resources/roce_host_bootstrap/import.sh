# The import ID is the host address.
terraform import roce_host_bootstrap.gpu1 10.0.1.11
