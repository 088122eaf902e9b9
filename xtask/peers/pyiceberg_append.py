"""The peer of `schema2iceberg deliver` in `cargo xtask bench --peers`: what a team would write
with pyarrow and pyiceberg to load NDJSON into an Iceberg table, with no JSON Schema validation at
all. pyarrow's JSON reader reads the whole file with the table's Arrow schema, and pyiceberg
appends it, in one commit, into a new table of an SqlCatalog (SQLite) with the table's schema and
its hour partition.

usage: python pyiceberg_append.py COMPILED.json NDJSON WAREHOUSE
COMPILED.json is `schema2iceberg compile --format json`'s output (the schema and partition spec).
Prints `rows N`.
"""

import json
import sys

import pyarrow as pa
import pyarrow.json as pj
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.io.pyarrow import schema_to_pyarrow
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import HourTransform


def plain(t: pa.DataType) -> pa.DataType:
    """`t` with Arrow's regular lists and strings, which the JSON reader converts to, in place of
    the large ones that pyiceberg's Arrow schema has."""
    if pa.types.is_large_list(t) or pa.types.is_list(t):
        return pa.list_(plain_field(t.value_field))
    if pa.types.is_struct(t):
        return pa.struct([plain_field(t.field(i)) for i in range(t.num_fields)])
    if pa.types.is_map(t):
        return pa.map_(plain(t.key_type), plain_field(t.item_field))
    if pa.types.is_large_string(t):
        return pa.string()
    if pa.types.is_large_binary(t):
        return pa.binary()
    return t


def plain_field(f: pa.Field) -> pa.Field:
    return pa.field(f.name, plain(f.type), nullable=f.nullable)


def main(compiled_path: str, ndjson: str, warehouse: str) -> None:
    with open(compiled_path, encoding="utf-8") as f:
        compiled = json.load(f)
    schema = Schema.model_validate(compiled["schema"])
    fields = [
        PartitionField(
            source_id=p["source-id"],
            field_id=p["field-id"],
            transform=HourTransform(),
            name=p["name"],
        )
        for p in compiled["partition-spec"]["fields"]
    ]
    catalog = SqlCatalog(
        "bench", uri=f"sqlite:///{warehouse}/catalog.db", warehouse=f"file://{warehouse}"
    )
    catalog.create_namespace("bench")
    table = catalog.create_table(
        "bench.orders", schema=schema, partition_spec=PartitionSpec(*fields)
    )
    arrow_schema = pa.schema([plain_field(f) for f in schema_to_pyarrow(schema)])
    rows = pj.read_json(
        ndjson,
        parse_options=pj.ParseOptions(
            explicit_schema=arrow_schema, unexpected_field_behavior="ignore"
        ),
    )
    # The reader makes every field nullable; the table has required ones.
    rows = rows.cast(arrow_schema)
    table.append(rows)
    print(f"rows {rows.num_rows}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
