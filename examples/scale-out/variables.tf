# What differs from pod to pod: pods/<pod>.tfvars.json sets these. The policy does not
# (policy.tf).

variable "switches" {
  description = "The pod's leaf switches: name, address (gNMI on SONiC, NVUE on Cumulus), RoCE ports and, optionally, the operating system (sonic or cumulus), cable length and SONiC release."
  type = list(object({
    name           = string
    address        = string
    os             = optional(string, "sonic")
    ports          = list(string)
    cable_length_m = optional(number, 5)
    sonic_release  = optional(string)
  }))
}

variable "hosts" {
  description = "The pod's GPU hosts: name and SSH address (`host:port`)."
  type = list(object({
    name    = string
    address = string
  }))
  default = []
}

variable "nics_per_host" {
  description = "RoCE NICs (rails) per host."
  type        = number
  default     = 8
}

variable "ofed_repo_urls" {
  description = "The pod's site mirror of the fabric's DOCA-OFED release, by package family (debian, rhel); null leaves the hosts' RDMA stack alone."
  type        = map(string)
  default     = null
}

variable "gnmi" {
  description = "The provider's gNMI credentials for the pod's SONiC switches (null without one)."
  type = object({
    username = string
    password = string
    ca_file  = string
  })
  sensitive = true
  default   = null
}

variable "nvue" {
  description = "The provider's NVUE credentials for the pod's Cumulus switches (null without one)."
  type = object({
    username = string
    password = string
    ca_file  = string
  })
  sensitive = true
  default   = null
}

variable "ssh" {
  description = "The provider's SSH login for the pod's hosts (host keys verified through known_hosts_file)."
  type = object({
    user             = string
    private_key_file = string
    known_hosts_file = string
  })
  default = null
}
