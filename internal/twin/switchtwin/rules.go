package switchtwin

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// validateRules plays the sonic-yang-models rules that span entries or depend on the release
// (sonic-buildimage src/sonic-yang-models/yang-models at 202411, 202505, 202511 and master):
//   - sonic-pfcwd.yang: a port's detection_time and restoration_time must be at least the
//     GLOBAL POLL_INTERVAL when a GLOBAL row exists (a GLOBAL row without POLL_INTERVAL fails
//     every port: XPath compares with an empty node-set); POLL_INTERVAL is 100..3000 up to
//     202505 and 100..1000 from 202511; pfc_stat_history exists from 202511;
//   - sonic-port-qos-map.yang: pfc_enable and pfcwd_sw_enable may be empty only from 202505.
//
// Like YANG on a GCU apply, it checks the whole result: every PFC_WD row when PFC_WD changed.
func validateRules(rel sonic.Release, before, after sonic.DB) error {
	changed := map[string]bool{}
	for _, c := range sonic.Diff(before, after) {
		changed[c.Table] = true
	}
	var errs []error
	if changed["PFC_WD"] {
		errs = append(errs, pfcwdRules(rel, after["PFC_WD"])...)
	}
	if changed["PORT_QOS_MAP"] && !atLeast(rel, 202505) {
		for _, key := range sortedKeys(after["PORT_QOS_MAP"]) {
			for _, f := range []string{"pfc_enable", "pfcwd_sw_enable"} {
				if v, ok := after["PORT_QOS_MAP"][key][f]; ok && v == "" {
					errs = append(errs, fieldError("PORT_QOS_MAP", key, f, v, "must not be empty before 202505: remove the field instead"))
				}
			}
		}
	}
	return errors.Join(errs...)
}

func pfcwdRules(rel sonic.Release, rows map[string]sonic.Entry) []error {
	var errs []error
	maxPoll := uint64(3000)
	if atLeast(rel, 202511) {
		maxPoll = 1000
	}
	global, hasGlobal := rows["GLOBAL"]
	poll, pollErr := strconv.ParseUint(global["POLL_INTERVAL"], 10, 64)
	if hasGlobal && pollErr == nil && poll > maxPoll {
		errs = append(errs, fieldError("PFC_WD", "GLOBAL", "POLL_INTERVAL", global["POLL_INTERVAL"],
			fmt.Sprintf("must be in 100..%d on %s", maxPoll, rel)))
	}
	for _, port := range sortedKeys(rows) {
		if port == "GLOBAL" {
			continue
		}
		e := rows[port]
		if _, ok := e["POLL_INTERVAL"]; ok {
			errs = append(errs, fieldError("PFC_WD", port, "POLL_INTERVAL", e["POLL_INTERVAL"], "only the GLOBAL row may carry POLL_INTERVAL"))
		}
		if v, ok := e["pfc_stat_history"]; ok && !atLeast(rel, 202511) {
			errs = append(errs, fieldError("PFC_WD", port, "pfc_stat_history", v, fmt.Sprintf("no such field on %s (it exists from 202511)", rel)))
		}
		if !hasGlobal {
			continue
		}
		for _, f := range []string{"detection_time", "restoration_time"} {
			v, ok := e[f]
			if !ok {
				continue
			}
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				continue // the field check reports it
			}
			if pollErr != nil || n < poll {
				errs = append(errs, fieldError("PFC_WD", port, f, v,
					fmt.Sprintf("%s must be greater than or equal to POLL_INTERVAL (PFC_WD|GLOBAL POLL_INTERVAL %q)", f, global["POLL_INTERVAL"])))
			}
		}
	}
	return errs
}

// atLeast reports whether rel is branch or later; master is later than every branch.
func atLeast(rel sonic.Release, branch int) bool {
	return rel.IsMaster() || rel.AtLeast(branch)
}
