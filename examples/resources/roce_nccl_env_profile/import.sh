# The import ID is <host>|<path>.
terraform import 'roce_nccl_env_profile.node["10.0.1.11"]' '10.0.1.11|/etc/nccl.conf'
