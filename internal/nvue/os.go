package nvue

// OS is the name users give NVIDIA Cumulus Linux, whose API this is, in a switch's `os`.
const OS = "cumulus"
