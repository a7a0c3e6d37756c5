#!/usr/bin/env bash
# Installs what ClientConformanceIT needs, once (a later run finds it in place and returns at once):
#   - the Python clients of requirements.txt in a virtualenv, from PyPI,
#   - node-postgres and its COPY and cursor packages, from the npm registry,
#   - pgx, built with its pinned modules (pgx/go.mod, go.sum) from the Go module proxy.
# Everything goes under tests/target/clients (gone with `mvn clean`). The PostgreSQL 15 server whose answers are the
# expected ones is a Maven artifact of the tests module (Postgres15 unpacks it).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
env_dir=$here/../target/clients
mkdir -p "$env_dir"

if [[ ! -f $env_dir/python.done || $here/requirements.txt -nt $env_dir/python.done ]]; then
  python3 -m venv "$env_dir/venv"
  "$env_dir/venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
  touch "$env_dir/python.done"
fi

if [[ ! -f $env_dir/node.done || $here/package.json -nt $env_dir/node.done ]]; then
  cp "$here/package.json" "$here/package-lock.json" "$env_dir/"
  (cd "$env_dir" && npm ci --silent --no-audit --no-fund)
  touch "$env_dir/node.done"
fi

if [[ ! -x $env_dir/pgx-conformance || -n $(find "$here/pgx" -newer "$env_dir/pgx-conformance" -type f) ]]; then
  (cd "$here/pgx" && go build -o "$env_dir/pgx-conformance" .)
fi

echo "clients ready in $env_dir"
