# The import ID is the host address.
terraform import roce_nic_dcqcn.gpu1 10.0.1.11
