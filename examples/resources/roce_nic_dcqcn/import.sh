# The import ID is the host address. dcqcn and cnp are read back from the first ConnectX
# port (OFED sysfs, debugfs cc_params or the NV configuration); the other attributes start at
# their defaults, and the first plan shows what the configuration changes on the host.
terraform import roce_nic_dcqcn.gpu1 10.0.1.11
