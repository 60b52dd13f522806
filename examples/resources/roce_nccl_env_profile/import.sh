# The import ID is <host>|<path>, or <host>|<path>|<profile_script_path> when the profile also
# writes a profile.d script (the file does not name it). The variables are read back from the
# file; nccl_version is not in it and stays unset, and a GID index in the file reads back as
# gid_index = "auto" where auto writes that index on the host, else as the number.
terraform import 'roce_nccl_env_profile.node["10.0.1.11"]' '10.0.1.11|/etc/nccl.conf|/etc/profile.d/nccl.sh'
