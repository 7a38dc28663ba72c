#!/bin/sh
# A command hook that answers with an outcome object on stdout: it adds the
# tool call to an audit log and tells the model nothing.
payload=$(cat)
log=${TMPDIR:-/tmp}/luahook-audit.log
printf '%s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$payload" >> "$log"
echo '{}'
