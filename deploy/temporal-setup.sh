#!/bin/sh
# Creates Temporal's two PostgreSQL databases and brings their schemas to this server version's,
# with temporal-sql-tool and the schemas built into it. Every step is idempotent, so it runs at
# every start: docker-compose.yml's temporal-setup service (temporalio/admin-tools image) and
# `got cluster up` both run this file.
# Reads POSTGRES_HOST, POSTGRES_PORT, POSTGRES_USER, POSTGRES_PASSWORD, TEMPORAL_DB_NAME,
# TEMPORAL_VISIBILITY_DB_NAME (deploy/temporal.env) and TEMPORAL_SQL_TOOL (default: on PATH).
set -eu
tool="${TEMPORAL_SQL_TOOL:-temporal-sql-tool}"
# The tool reads its connection from these (the password stays out of the process list).
export SQL_PLUGIN=postgres12 SQL_HOST="$POSTGRES_HOST" SQL_PORT="${POSTGRES_PORT:-5432}" \
  SQL_USER="$POSTGRES_USER" SQL_PASSWORD="$POSTGRES_PASSWORD"

setup() {
  "$tool" --db "$1" create-database
  "$tool" --db "$1" setup-schema -v 0.0
  "$tool" --db "$1" update-schema --schema-name "$2"
}
setup "$TEMPORAL_DB_NAME" postgresql/v12/temporal
setup "$TEMPORAL_VISIBILITY_DB_NAME" postgresql/v12/visibility
