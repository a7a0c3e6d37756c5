"""Copies the conformance table the last ClientConformanceIT run rendered (tests/target/clients-table.md) into
docs/clients.md, between its markers. Run from the repository's root after a run whose answers changed."""
import pathlib

root = pathlib.Path(__file__).resolve().parents[2]
doc_path = root / "docs" / "clients.md"
doc = doc_path.read_text(encoding="utf-8")
table = (root / "tests" / "target" / "clients-table.md").read_text(encoding="utf-8")
start, end = "<!-- conformance:start -->\n", "<!-- conformance:end -->"
i, j = doc.index(start) + len(start), doc.index(end)
doc_path.write_text(doc[:i] + table + doc[j:], encoding="utf-8")
print(f"{doc_path}: table updated")
