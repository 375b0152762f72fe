#!/bin/sh
# docker-compose.yml's temporal-namespace service (temporalio/admin-tools image): waits for the
# frontend, then registers the namespace the workers use unless it exists. `got cluster up` does the
# same over gRPC (src/cluster/temporal-server.ts). Reads TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and
# TEMPORAL_NAMESPACE_RETENTION (deploy/temporal.env).
set -eu
until temporal operator cluster health --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1; do sleep 1; done
temporal operator namespace describe --address "$TEMPORAL_ADDRESS" --namespace "$TEMPORAL_NAMESPACE" >/dev/null 2>&1 ||
  temporal operator namespace create --address "$TEMPORAL_ADDRESS" --namespace "$TEMPORAL_NAMESPACE" \
    --retention "$TEMPORAL_NAMESPACE_RETENTION"
