package main

import (
	"fmt"
	"os"
	"strconv"
)

// instanceEnv names the environment variable that gives serve's instance
// id when --instance-id does not: an orchestrator sets it from the pod or
// task name.
const instanceEnv = "LUAHOOK_INSTANCE_ID"

// maxInstanceID bounds an instance id: it is a label value of every
// replica's metrics and a field of every decision record.
const maxInstanceID = 128

// instanceID is the id serve names itself by in its logs, decision records
// and metrics: flag (--instance-id) if set, else $LUAHOOK_INSTANCE_ID,
// else HOSTNAME-PID, which tells apart the replicas of one host as well as
// those of many. An id is at most 128 letters, digits and ". _ : -".
func instanceID(flag string) (string, error) {
	id, from := flag, "--instance-id"
	if id == "" {
		id, from = os.Getenv(instanceEnv), "$"+instanceEnv
	}
	if id == "" {
		host, err := os.Hostname()
		if err != nil || host == "" {
			host = "luahook"
		}
		id, from = host+"-"+strconv.Itoa(os.Getpid()), "the host name"
		if len(id) > maxInstanceID {
			id = id[len(id)-maxInstanceID:]
		}
	}
	if len(id) > maxInstanceID {
		return "", fmt.Errorf("%s: instance id of %d bytes is over the limit of %d", from, len(id), maxInstanceID)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return "", fmt.Errorf("%s: instance id %q: byte %d (%q) is not a letter, a digit or one of . _ : -", from, id, i, c)
		}
	}
	return id, nil
}
