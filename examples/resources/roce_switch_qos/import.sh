# The import ID is <address>/<name>/<port>,<port>,... (name defaults to ROCE when omitted:
# <address>/<port>,<port>,...). The PFC pause threshold is not stored on the switch: the first
# plan after an import sets it from the configuration without touching the switch, and a
# destroy after an import restores SONiC's stock AZURE maps.
terraform import roce_switch_qos.leaf1 '10.0.0.1:50051/ROCE/Ethernet0,Ethernet8'
