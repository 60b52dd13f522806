# The import ID is <address>/<name>/<port>,<port>,... (name defaults to ROCE when omitted:
# <address>/<port>,<port>,...). Everything is read back from the switch except pfc: the pause
# threshold and the ratio window are design inputs the switch does not store (SONiC derives the
# pause point itself), so the first plan after an import sets them from the configuration
# without touching the switch, and a destroy after an import restores SONiC's stock AZURE maps.
terraform import roce_switch_qos.leaf1 '10.0.0.1:50051/ROCE/Ethernet0,Ethernet8'
