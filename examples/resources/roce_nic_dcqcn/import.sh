# The import ID is the host address. dcqcn and cnp are read back from the first ConnectX
# port (OFED sysfs, debugfs cc_params or the NV configuration), pfc_priorities from mlnx_qos,
# set_traffic_class and rdma_dscp from tc/1/traffic_class, and persist from whether the boot
# unit is installed. priority starts at its default (firmware enables DCQCN on every priority),
# and the first plan shows what the configuration changes on the host.
terraform import roce_nic_dcqcn.gpu1 10.0.1.11
