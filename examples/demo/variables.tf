# roce-twin up --tfvars FILE writes every variable here (terraform.tfvars.json).

variable "switches" {
  description = "Leaf switches: name, address (gNMI on SONiC, NVUE on Cumulus), RoCE ports and, optionally, the operating system (sonic or cumulus), cable length and SONiC release."
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
  description = "GPU hosts: name and SSH address (`host:port`)."
  type = list(object({
    name    = string
    address = string
  }))
}

variable "gnmi" {
  description = "The provider's gNMI credentials, shared by every SONiC switch (null without one)."
  type = object({
    username = string
    password = string
    ca_file  = string
  })
  sensitive = true
  default   = null
}

variable "nvue" {
  description = "The provider's NVUE credentials, shared by every Cumulus switch (null without one)."
  type = object({
    username = string
    password = string
    ca_file  = string
  })
  sensitive = true
  default   = null
}

variable "ssh" {
  description = "The provider's SSH login, shared by every host (host keys verified through known_hosts_file)."
  type = object({
    user             = string
    private_key_file = string
    known_hosts_file = string
  })
}

variable "ofed" {
  description = "The OFED stack to pin: flavor, exact version and the versioned repository it comes from (repo_urls: one per package family, debian and rhel, for a fleet of both); null leaves the hosts' stack alone."
  type = object({
    flavor    = string
    version   = string
    repo_url  = string
    repo_urls = optional(map(string), {})
    trusted   = optional(bool, false)
  })
  default = null
}

variable "ecn_min_threshold_bytes" {
  description = "Where ECN starts marking. make demo changes it as a staged rollout: the canary first, the rest once the canary is healthy."
  type        = number
  default     = 102400
}

variable "rollout" {
  description = "The staged rollout (the module's var.rollout): the SONiC leaf and the first host are the canary. The first build is not gated (gate = false): until the rest is configured, the canary's traffic to it is not lossless. make demo turns the gate on for a later change."
  type = object({
    canary_switches  = optional(list(string), [])
    canary_hosts     = optional(list(string), [])
    gate             = optional(bool, true)
    interval_seconds = optional(number, 10)
  })
  default = { canary_switches = ["leaf1"], canary_hosts = ["gpu1"], gate = false, interval_seconds = 3 }
}

variable "pfc_pause_threshold_bytes" {
  description = "The PFC pause point the pod is designed for: 2.5x the ECN minimum. make demo shows 512000 (5x) refused at plan time."
  type        = number
  default     = 256000
}

variable "checks" {
  description = "Fabric health and NCCL test checks (the module's var.checks); make demo turns them on after the apply."
  type = object({
    fabric_health    = optional(bool, false)
    interval_seconds = optional(number, 5)
    nccl_test        = optional(bool, false)
    mpi_args         = optional(list(string), [])
    min_busbw_gbps   = optional(number)
  })
  default = {}
}
