"""Compares what each client saw from PostgreSQL 15 and from Coilgun, operation by operation, and renders the
conformance table of docs/clients.md.

    compare.py POSTGRES.jsonl COILGUN.jsonl differences.tsv TABLE.md

An operation **works** when Coilgun's answer equals Postgres' (the same value, or an error with the same SQLSTATE).
Any other answer must be listed in differences.tsv (client or `*`, operation, `differs` or `not supported`, the
reason); a `not supported` answer must be an error with a SQLSTATE other than XX000. The run fails (exit 1) on an
answer that differs and is not listed, on a listed difference that is gone (so the table stays true), and on any
internal error (XX000) or missing answer from Coilgun.
"""
import json
import sys

DRIVERS = [("psycopg", "psycopg 3"), ("psycopg2", "psycopg2"), ("sqlalchemy-psycopg2", "SQLAlchemy (psycopg2)"),
           ("sqlalchemy-psycopg", "SQLAlchemy (psycopg)"), ("pandas", "pandas"), ("node-postgres", "node-postgres"),
           ("pgx", "pgx (Go)"), ("pgjdbc", "pgjdbc")]
BI_TOOLS = [("grafana", "Grafana"), ("metabase", "Metabase"), ("dbeaver", "DBeaver")]


def read(path):
    answers = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                answers[(d["client"], d["op"])] = d
    return answers


def same(a, b):
    if a["ok"] != b["ok"]:
        return False
    return a.get("value") == b.get("value") if a["ok"] else a.get("sqlstate") == b.get("sqlstate")


def shown(d):
    text = json.dumps(d.get("value"), ensure_ascii=False) if d["ok"] else f"ERROR {d.get('sqlstate')}: {d.get('error')}"
    return text if len(text) <= 400 else text[:400] + "…"


def main(pg_path, cg_path, diff_path, table_path):
    pg, cg = read(pg_path), read(cg_path)
    listed = {}
    with open(diff_path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip() and not line.startswith("#"):
                client, op, status, reason = line.rstrip("\n").split("\t")
                listed[(client, op)] = (status, reason, n)

    def listing(client, op):
        return listed.get((client, op)) or listed.get(("*", op))

    problems, cells = [], {}
    for key, expected in pg.items():
        client, op = key
        got = cg.get(key)
        entry = listing(client, op)
        if got is None:
            problems.append(f"{client} {op}: no answer from Coilgun")
            continue
        if not got["ok"] and got.get("sqlstate") in (None, "XX000"):
            problems.append(f"{client} {op}: an internal error, never acceptable: {shown(got)}")
        if same(expected, got):
            cells[key] = ("works", None)
            if entry and (client, op) in listed:
                problems.append(f"{client} {op}: now the same as Postgres; remove line {entry[2]} of differences.tsv")
            continue
        if entry is None:
            problems.append(f"{client} {op}: differs from Postgres and is not listed in differences.tsv\n"
                            f"    postgres: {shown(expected)}\n    coilgun:  {shown(got)}")
            continue
        status, reason, n = entry
        if status == "not supported" and got["ok"]:
            problems.append(f"{client} {op}: listed as not supported but answered: {shown(got)}")
        cells[key] = (status, reason)
    for key in cg:
        if key not in pg:
            problems.append(f"{key[0]} {key[1]}: answered by Coilgun only (Postgres' run lacks it)")
    # a listing no answer needs: a stale or mistyped line, or a * line every client now passes
    for (client, op), (status, reason, n) in listed.items():
        keys = [k for k in pg if k[1] == op and (client == "*" or k[0] == client)]
        if not keys:
            problems.append(f"line {n} of differences.tsv ({client} {op}) names no operation of the run")
        elif client == "*" and all(cells.get(k, ("",))[0] == "works" for k in keys):
            problems.append(f"line {n} of differences.tsv (* {op}): every client now answers as Postgres; remove it")

    reasons = []
    for key in sorted(cells, key=lambda k: list(pg).index(k)):
        r = cells[key][1]
        if r and r not in reasons:
            reasons.append(r)
    lines = []
    for clients in (DRIVERS, BI_TOOLS):
        ops = []
        for client, op in pg:
            if op not in ops and client in [c for c, _ in clients]:
                ops.append(op)
        if lines:
            lines.append("")
        lines += ["| operation | " + " | ".join(title for _, title in clients) + " |",
                  "| --- |" + " --- |" * len(clients)]
        for op in ops:
            row = []
            for client, _ in clients:
                cell = cells.get((client, op))
                if cell is None:
                    row.append("—" if (client, op) not in pg else "**fails**")
                else:
                    status, reason = cell
                    row.append(status if reason is None else f"{status} ({reasons.index(reason) + 1})")
            lines.append(f"| `{op}` | " + " | ".join(row) + " |")
    lines.append("")
    lines += [f"{i}. {r}" for i, r in enumerate(reasons, 1)]
    with open(table_path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    works = sum(1 for c in cells.values() if c[0] == "works")
    print(f"{works} of {len(pg)} operations answer as PostgreSQL 15 does; table in {table_path}")
    for p in problems:
        print("PROBLEM " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
