"""Prints every row of one table of a deliver warehouse as pyiceberg's SqlCatalog scans it, one
JSON object a line, each value in Iceberg's single-value JSON form (a copy of
crates/cli/tests/deliver/read_pyiceberg.py, kept here so the capture does not depend on the test
tree it is comparing). Used by scripts/capture_outputs.py.

Usage: python capture_pyiceberg_rows.py WAREHOUSE NAMESPACE.TABLE
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
    warehouse, table_name = sys.argv[1], sys.argv[2]
    catalog = SqlCatalog(
        "schema2iceberg",
        uri=f"sqlite:///{warehouse}/catalog.db",
        warehouse=f"file://{warehouse}",
    )
    table = catalog.load_table(table_name)
    arrow = table.scan().to_arrow()
    for row in arrow.to_pylist():
        out = {f.name: value(row[f.name], f.type) for f in arrow.schema}
        print(json.dumps(out, ensure_ascii=False))


main()
