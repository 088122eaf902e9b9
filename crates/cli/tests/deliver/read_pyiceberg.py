"""Reads the table db.events of a deliver warehouse with pyiceberg's SqlCatalog (another engine
than iceberg-rust) and prints each row as one JSON object, every value in Iceberg's single-value
JSON form, as `schema2iceberg records --show all` prints rows. Used by crates/cli/tests/deliver.rs
when SCHEMA2ICEBERG_TEST_PYTHON names a Python with pyiceberg[sql-sqlite,pyarrow]==0.12.0.

Usage: python read_pyiceberg.py WAREHOUSE [NAMESPACE.TABLE]
"""

import datetime
import decimal
import json
import sys
import uuid

import pyarrow as pa

from pyiceberg.catalog.sql import SqlCatalog


def fraction(micros):
    if micros == 0:
        return ""
    if micros % 1000 == 0:
        return ".%03d" % (micros // 1000)
    return ".%06d" % micros


def value(v, t):
    """One value of Arrow type t (as pyiceberg returns it) in single-value JSON form."""
    if v is None:
        return None
    if pa.types.is_map(t):
        # pyiceberg gives maps as lists of (key, value) tuples.
        return {k: value(x, t.item_type) for k, x in v}
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [value(x, t.value_type) for x in v]
    if pa.types.is_struct(t):
        return {f.name: value(v.get(f.name), f.type) for f in t}
    if isinstance(v, datetime.datetime):
        v = v.astimezone(datetime.timezone.utc)
        return v.strftime("%Y-%m-%dT%H:%M:%S") + fraction(v.microsecond) + "+00:00"
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, datetime.time):
        return v.strftime("%H:%M:%S") + fraction(v.microsecond)
    if isinstance(v, (decimal.Decimal, uuid.UUID)):
        return str(v)
    if isinstance(v, bytes):
        return v.hex()
    return v


def main():
    warehouse = sys.argv[1]
    catalog = SqlCatalog(
        "schema2iceberg",
        uri=f"sqlite:///{warehouse}/catalog.db",
        warehouse=f"file://{warehouse}",
    )
    table = catalog.load_table(sys.argv[2] if len(sys.argv) > 2 else "db.events")
    arrow = table.scan().to_arrow()
    for row in arrow.to_pylist():
        out = {f.name: value(row[f.name], f.type) for f in arrow.schema}
        print(json.dumps(out, ensure_ascii=False))


main()
