terraform {
  required_version = ">= 1.8"
  required_providers {
    roce = {
      source = "clusterbid/roce"
    }
  }
}

# Headroom a 400G port on a 5 m cable needs for one lossless priority (MTU 9100):
# { xon_bytes = 19456, xoff_bytes = 230400, size_bytes = 249856 }
# (SONiC's SN5600 table lists xoff 231424: the formula matches it within 1 KiB.)
output "leaf_port_headroom" {
  value = provider::roce::pfc_headroom(400, 5, 9100)
}

# What 64 such ports reserve, to compare with the SN5600 ingress lossless pool (67 737 959 B).
output "leaf_lossless_reservation_bytes" {
  value = 64 * provider::roce::pfc_headroom(400, 5, 9100).size_bytes
}
